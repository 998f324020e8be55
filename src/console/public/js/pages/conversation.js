// One conversation (a session key): its routing entry and flags, every session it has had, its queue and runtime
// binding, and the operator's actions (reset, suspend, switch, resume mark), each confirmed and showing what it wrote.
import { api, enc, get, post } from '../api.js';
import { badge, confirmAction, dataTable, errorBox, section, sessionKeyText, writtenEvents } from '../components.js';
import { el } from '../element.js';
import { eventRow } from '../eventTimeline.js';
import { formatCount, formatTime, messageText } from '../format.js';

const EVENTS_PAGE = 500;

async function allEvents(key) {
  const events = [];
  for (let from = 0; from !== null;) {
    const page = await get(`/v1/conversations/${enc(key)}/events?fromRevision=${from}&limit=${EVENTS_PAGE}`);
    events.push(...page.events);
    from = page.nextRevision;
  }
  return events;
}

/** Every session the key has had, oldest first, from its SessionBound events: why each began and what it replaced. */
function sessionsOf(events, currentId) {
  const bound = events.filter((event) => event.type === 'SessionBound');
  return dataTable(
    ['Session', 'Bound', 'Why', 'Replaced'],
    bound
      .slice()
      .reverse()
      .map((event) => [
        el(
          'span',
          {},
          el('a', { href: `#/sessions/${enc(event.data.sessionId)}` }, event.data.sessionId),
          event.data.sessionId === currentId ? ' ' : null,
          event.data.sessionId === currentId ? badge('current', 'ok') : null,
        ),
        formatTime(event.data.at ?? event.createdAt),
        event.data.reason,
        event.data.previousSessionId ?? '—',
      ]),
    { empty: 'No session yet.' },
  );
}

function flags(entry) {
  const shown = [
    entry.suspended && badge('suspended', 'warn'),
    entry.resumePending && badge(`resume pending${entry.resumeReason ? `: ${entry.resumeReason}` : ''}`, 'info'),
    entry.wasAutoReset && badge(`auto-reset${entry.autoResetReason ? `: ${entry.autoResetReason}` : ''}`),
    entry.isFreshReset && badge('fresh reset'),
  ].filter(Boolean);
  return shown.length > 0 ? shown : el('span', { class: 'muted' }, 'none');
}

function queueView(queue) {
  // A gateway start's continuation waits at the overflow's head and is taken before the slot: listed first.
  const continuation = queue.overflow[0]?.kind === 'auto_continue' ? [{ ...queue.overflow[0], place: 'head (auto-continue)' }] : [];
  const items = [
    ...continuation,
    ...(queue.slot ? [{ ...queue.slot, place: 'slot' }] : []),
    ...queue.overflow.slice(continuation.length).map((message) => ({ ...message, place: 'overflow' })),
  ];
  return el(
    'div',
    { id: 'conversation-queue' },
    el('p', { class: 'muted' }, `${queue.depth} waiting`),
    dataTable(
      ['Where', 'Message', 'Queued'],
      items.map((message) => [
        message.place,
        message.text === null ? el('span', { class: 'muted' }, `(${message.media.length} media)`) : messageText(message.text),
        formatTime(message.queuedAt),
      ]),
      { empty: 'The queue is empty.' },
    ),
  );
}

const BIND_REASONS = {
  new: 'on the first runtime turn',
  drift: 'anew, the provider or model changed',
  new_command: 'anew with /new',
  task: 'anew with /new <task>',
};

/** The runtime binding in words: what is bound, since when and why, and how the bound runtime session stands. */
function runtimeView(key, binding) {
  if (!binding || !binding.runtimeSessionId)
    return el(
      'p',
      { class: 'muted', id: 'conversation-runtime' },
      binding?.previousRuntimeSessionId
        ? `No runtime session is bound to this conversation (detached; it was ${binding.previousRuntimeSessionId}).`
        : 'No runtime session is bound to this conversation.',
    );
  const runtime = binding.runtime;
  const rows = [
    ['Runtime session', el('a', { href: `#/conversations/${enc(key)}/runtime` }, el('code', {}, binding.runtimeSessionId))],
    ['Provider', [binding.provider ?? 'unknown', binding.model ? ` · ${binding.model}` : ''].join('')],
    ['Bound', `${formatTime(binding.boundAt)}${binding.reason ? `, ${BIND_REASONS[binding.reason] ?? binding.reason}` : ''}`],
    binding.previousRuntimeSessionId ? ['Before it', el('code', {}, binding.previousRuntimeSessionId)] : null,
    ['State', badge(binding.state.replace('_', ' '), binding.state === 'running' ? 'info' : binding.state.startsWith('waiting') ? 'warn' : '')],
    runtime?.state === 'interrupted' ? ['Runtime', badge('interrupted', 'warn')] : null,
    runtime ? ['Turns', `${formatCount(runtime.turnCount)}${runtime.currentTurnId ? ` · in flight: ${runtime.currentTurnId}` : ''}`] : null,
    runtime && runtime.pendingApprovals + runtime.pendingQuestions > 0
      ? ['Waiting on', `${formatCount(runtime.pendingApprovals)} approval(s), ${formatCount(runtime.pendingQuestions)} question(s)`]
      : null,
    runtime?.interruptRequested
      ? ['Interrupt', `asked to stop turn ${runtime.interruptRequested.turnId} at ${formatTime(runtime.interruptRequested.requestedAt)}`]
      : null,
    runtime?.lastError
      ? [
          'Last error',
          `${runtime.lastError.kind.replace('_', ' ')} (${runtime.lastError.reason.replace(/_/g, ' ')}) at ${formatTime(runtime.lastError.at)}: ${runtime.lastError.message}`,
        ]
      : null,
    binding.note ? ['Note', `${binding.note.note} (${binding.note.runtimeSessionId}, ${formatTime(binding.note.at)})`] : null,
  ].filter(Boolean);
  return el(
    'dl',
    { class: 'summary', id: 'conversation-runtime' },
    rows.map(([name, value]) => el('div', {}, el('dt', {}, name), el('dd', {}, value))),
  );
}

/** The events an action wrote to this conversation: those after the revision the page was drawn at. */
async function writtenSince(key, revision) {
  const page = await get(`/v1/conversations/${enc(key)}/events?fromRevision=${revision + 1}&limit=50`);
  return writtenEvents(`conversation-${key}`, page.events);
}

/** What erasing the key touches, counted from what the page already read and the jobs created from the key. */
async function describeErase(key, sessionCount, runtime) {
  const jobs = await get('/v1/jobs?limit=500');
  const fromKey = jobs.jobs.filter((job) => job.origin && job.origin.sessionKey === key).length;
  return (
    `Erase everything personal about ${key}: every event of its conversation, its ${sessionCount === 1 ? 'session' : `${sessionCount} sessions`}` +
    `${runtime && runtime.runtimeSessionId ? ', its runtime sessions' : ''} and its jobs is rewritten without messages and personal ids, ` +
    `and the key's streams are renamed to a random erased:… key. ${sessionCount === 1 ? 'Its session is' : 'Its sessions are'} destroyed, ` +
    `${fromKey === 0 ? 'no job was created from it' : `${fromKey === 1 ? 'the job' : `the ${fromKey} jobs`} created from it ${fromKey === 1 ? 'is' : 'are'} removed`}, ` +
    `and every read model is rebuilt. Records PersonalDataErased and PersonalDataErasureCompleted in erasure-log. ` +
    `This cannot be undone: the transcripts are gone for good.`
  );
}

function erasureOutcome(key, result) {
  return el(
    'div',
    { class: 'notice ok written', role: 'status', id: 'erasure-outcome' },
    el(
      'p',
      {},
      `Erased ${key}. Recorded in erasure-log: `,
      el('strong', { class: 'event-type' }, 'PersonalDataErased'),
      ' and ',
      el('strong', { class: 'event-type' }, 'PersonalDataErasureCompleted'),
      ` (erasure ${result.erasureId}).`,
    ),
    el(
      'dl',
      { class: 'summary' },
      [
        ['events read', result.eventsRead],
        ['events rewritten', result.eventsRewritten],
        ['streams renamed', result.streamsRenamed],
        ['sessions destroyed', result.sessionsDestroyed],
        ['jobs removed', result.jobsRemoved],
        ['stored answers removed', result.storedAnswersRemoved ?? 0],
        ['read models rebuilt', result.projectionsRebuilt.length],
      ].map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, String(value)))),
    ),
    el(
      'details',
      {},
      el('summary', {}, `${result.streams.length} streams rewritten`),
      el(
        'ul',
        {},
        result.streams.map((name) => el('li', {}, el('code', {}, name))),
      ),
    ),
    el('p', {}, el('a', { href: '#/' }, 'Back to the conversations')),
  );
}

export async function renderConversation(page, { params: [key] }) {
  const entry = await get(`/v1/conversations/${enc(key)}`);
  const [events, queue, runtime] = await Promise.all([
    allEvents(key),
    get(`/v1/conversations/${enc(key)}/queue`),
    get(`/v1/conversations/${enc(key)}/runtime`).catch(() => null),
  ]);
  const revision = entry.revision;
  const redraw = async () => {
    const shown = await writtenSince(key, revision);
    page.replaceChildren();
    try {
      await renderConversation(page, { params: [key] });
      page.querySelector('#conversation-actions')?.prepend(shown);
    } catch (error) {
      page.append(shown, errorBox(error));
    }
    return el('span');
  };
  const path = `/v1/conversations/${enc(key)}`;
  const sessionCount = new Set(events.filter((event) => event.type === 'SessionBound').map((event) => event.data.sessionId)).size;
  const switchSelect = el(
    'select',
    { id: 'switch-to', 'aria-label': 'session to switch to' },
    events
      .filter((event) => event.type === 'SessionBound' && event.data.sessionId !== entry.sessionId)
      .map((event) => el('option', { value: event.data.sessionId }, event.data.sessionId)),
  );
  const actions = el(
    'div',
    { id: 'conversation-actions', class: 'action-list' },
    confirmAction('Reset', {
      describe: () => `Starts a new session for ${key} (SessionBound, reason reset); ${entry.sessionId} ends and stays readable.`,
      run: async () => redraw(await post(`${path}/reset`, {})),
    }),
    confirmAction('Suspend', {
      kind: 'warn',
      describe: () => `Suspends ${key} (Suspended): its next message starts a new session, as /stop does.`,
      run: async () => redraw(await post(`${path}/suspend`, { reason: 'console' })),
    }),
    el(
      'div',
      { class: 'switch' },
      switchSelect.options.length > 0 ? switchSelect : el('span', { class: 'muted' }, 'No earlier session to switch to.'),
      switchSelect.options.length > 0
        ? confirmAction('Switch', {
            describe: () => `Binds ${key} to ${switchSelect.value} (SessionBound, reason switch), as /resume does; ${entry.sessionId} stays as it is.`,
            run: async () => redraw(await post(`${path}/switch`, { sessionId: switchSelect.value })),
          })
        : null,
    ),
    entry.resumePending
      ? confirmAction('Clear resume mark', {
          describe: () => `Clears the resume mark of ${key} (ResumeCleared, reason manual).`,
          run: async () => redraw(await api('DELETE', `${path}/resume-pending`)),
        })
      : confirmAction('Mark for resume', {
          describe: () => `Marks ${key} for a soft resume (ResumeMarked, reason restart_interrupted): its next message continues ${entry.sessionId}.`,
          run: async () => redraw(await post(`${path}/resume-pending`, { reason: 'restart_interrupted' })),
        }),
  );

  const summary = [
    ['session key', sessionKeyText(entry.sessionKey ?? key)],
    ['current session', el('a', { href: `#/sessions/${enc(entry.sessionId)}` }, entry.sessionId)],
    ['flags', el('span', { class: 'flags', id: 'conversation-flags' }, flags(entry))],
    ['platform', entry.platform ?? '—'],
    ['name', entry.displayName ?? '—'],
    ['updated', formatTime(entry.updatedAt)],
    ['turns', String(entry.turnCount ?? '—')],
    ['revision', String(revision)],
  ];
  page.append(
    el('h1', {}, 'Conversation ', sessionKeyText(key, { id: 'conversation-key' })),
    el(
      'div',
      { class: 'columns' },
      section(
        'Routing entry',
        el(
          'dl',
          { class: 'summary' },
          summary.map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, value))),
        ),
      ),
      section('Actions', actions),
    ),
    section('Sessions of this key', el('div', { id: 'conversation-sessions' }, sessionsOf(events, entry.sessionId))),
    el(
      'div',
      { class: 'columns' },
      section('Queue', queueView(queue)),
      section(
        'Runtime binding',
        runtimeView(key, runtime),
        el('p', {}, el('a', { href: `#/conversations/${enc(key)}/runtime`, id: 'runtime-page-link' }, 'Runtime page: pending approvals and questions')),
      ),
    ),
    section(
      `Event timeline (${events.length})`,
      el(
        'ol',
        { class: 'timeline', id: 'conversation-timeline' },
        events.map((event) => eventRow(event)),
      ),
    ),
    section(
      'Erase personal data',
      el(
        'div',
        { id: 'erase-conversation', class: 'action-list' },
        el('p', { class: 'muted' }, 'For a person who asks to be forgotten. Needs an admin token.'),
        confirmAction('Erase', {
          kind: 'danger',
          confirmWord: 'erase',
          describe: () => describeErase(key, sessionCount, runtime),
          run: async () => {
            const result = await post('/v1/admin/erase', { sessionKey: key });
            // The key's streams now have another name: this page has nothing left to show but the outcome.
            page.replaceChildren(el('h1', {}, 'Conversation erased'), erasureOutcome(key, result));
            return el('span');
          },
        }),
      ),
    ),
  );
}
