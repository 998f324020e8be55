// A conversation's runtime (#/conversations/<key>/runtime) or one runtime session (#/runtime-sessions/<id>): the
// binding and its state, the runtime session's turns, and the approvals and questions it waits on, answered here.
import { enc, get, post } from '../api.js';
import { badge, confirmAction, dataTable, errorBox, jsonBlock, notice, section, sessionKeyText } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatTime } from '../format.js';

const STATE_KINDS = {
  unbound: 'muted',
  idle: 'ok',
  running: 'info',
  starting: 'info',
  waiting_user: 'warn',
  waiting_approval: 'warn',
  interrupted: 'error',
};
const TURN_KINDS = { in_flight: 'info', completed: 'ok', failed: 'error', interrupted: 'error' };

const stateBadge = (state) => badge(state, STATE_KINDS[state] ?? '');
const summaryList = (rows) =>
  el(
    'dl',
    { class: 'summary' },
    rows.map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, value))),
  );

/** What the worker sent with a wait, field by field: text as it is (a command must be read whole), the rest as JSON. */
function detailsList(details) {
  const entries = details && typeof details === 'object' ? Object.entries(details) : [];
  if (entries.length === 0) return el('p', { class: 'muted' }, 'No details.');
  return el(
    'dl',
    { class: 'details' },
    entries.map(([name, value]) =>
      el(
        'div',
        {},
        el('dt', {}, name),
        el(
          'dd',
          {},
          typeof value === 'string'
            ? el('div', { class: 'message-text' }, value)
            : value === null || value === undefined
              ? '—'
              : typeof value === 'object'
                ? jsonBlock(value)
                : String(value),
        ),
      ),
    ),
  );
}

function bindingSection(binding, key) {
  if (binding.state === 'unbound' || !binding.runtimeSessionId) {
    return section(
      'Binding',
      el(
        'div',
        { id: 'runtime-binding' },
        summaryList([['state', stateBadge('unbound')]]),
        el('p', { class: 'muted' }, 'No runtime session is bound to this conversation: its next runtime turn starts one.'),
      ),
      binding.previousRuntimeSessionId
        ? el('p', {}, 'Last bound: ', el('a', { href: `#/runtime-sessions/${enc(binding.previousRuntimeSessionId)}` }, binding.previousRuntimeSessionId))
        : null,
    );
  }
  return section(
    'Binding',
    el(
      'div',
      { id: 'runtime-binding' },
      summaryList([
        ['state', stateBadge(binding.state)],
        ['runtime session', el('a', { href: `#/runtime-sessions/${enc(binding.runtimeSessionId)}` }, binding.runtimeSessionId)],
        ['provider', binding.provider ?? '—'],
        ['model', binding.model ?? '—'],
        ['bound because', binding.reason ?? '—'],
        ['bound at', formatTime(binding.boundAt)],
        [
          'before it',
          binding.previousRuntimeSessionId
            ? el('a', { href: `#/runtime-sessions/${enc(binding.previousRuntimeSessionId)}` }, binding.previousRuntimeSessionId)
            : '—',
        ],
        ['conversation', el('a', { href: `#/conversations/${enc(key)}` }, sessionKeyText(key))],
      ]),
      binding.note && binding.note.note ? el('p', { class: 'muted' }, `Note (${formatTime(binding.note.at)}): ${binding.note.note}`) : null,
    ),
  );
}

function runtimeSummary(runtime) {
  return summaryList([
    ['state', stateBadge(runtime.state)],
    ['provider', runtime.provider ?? '—'],
    ['model', runtime.model ?? '—'],
    ['turns', String(runtime.turnCount)],
    ['turn in flight', runtime.currentTurnId ?? 'none'],
    ['interrupt asked', runtime.interruptRequested ? `${runtime.interruptRequested.turnId} since ${formatTime(runtime.interruptRequested.requestedAt)}` : 'no'],
    ['last worker report', formatTime(runtime.lastWorkerEventAt)],
    ['created', formatTime(runtime.createdAt)],
    ['updated', formatTime(runtime.updatedAt)],
    [
      'last error',
      runtime.lastError ? el('span', { class: 'error-text' }, `${runtime.lastError.kind} (${runtime.lastError.reason}): ${runtime.lastError.message}`) : 'none',
    ],
  ]);
}

/** The answer's outcome: the event the service wrote on the runtime session's stream, and the state it left. */
function answered(type, runtimeSessionId, answer, what) {
  return answer.changed
    ? el(
        'div',
        { class: 'notice ok written', role: 'status' },
        el('p', {}, `Written to runtime-${runtimeSessionId}:`),
        el(
          'div',
          { class: 'written-event' },
          el('strong', { class: 'event-type' }, type),
          ` at revision ${answer.revision}`,
          el('span', { class: 'event-summary' }, ` · ${what}; the session is now ${answer.state}.`),
        ),
      )
    : notice(`It was answered so already: nothing was written. The session is ${answer.state}.`, 'ok');
}

function approvalCard(runtimeSessionId, approval, onAnswered) {
  const remember = el(
    'select',
    { name: 'remember', 'aria-label': 'remember the decision for' },
    [
      ['none', 'this request only'],
      ['session', 'the rest of this runtime session'],
      ['conversation', 'the whole conversation'],
    ].map(([value, label]) => el('option', { value }, label)),
  );
  const status = el('div', { class: 'answer-status' });
  const decide = async (decision) => {
    replaceContent(status, el('p', { class: 'muted' }, `${decision === 'allow' ? 'Allowing' : 'Denying'}…`));
    try {
      const answer = await post(`/v1/runtime-sessions/${enc(runtimeSessionId)}/approvals/${enc(approval.approvalId)}`, { decision, remember: remember.value });
      await onAnswered(
        answered(
          'ApprovalResolved',
          runtimeSessionId,
          answer,
          `${approval.approvalId} ${decision === 'allow' ? 'allowed' : 'denied'}, remembered for ${remember.value}`,
        ),
      );
    } catch (error) {
      replaceContent(status, errorBox(error));
    }
  };
  return el(
    'li',
    { class: 'wait-card', dataset: { approval: approval.approvalId } },
    el(
      'div',
      { class: 'message-head' },
      el('strong', {}, approval.approvalId),
      el('span', { class: 'muted' }, `${approval.turnId} · asked ${formatTime(approval.requestedAt)}`),
    ),
    detailsList(approval.details),
    el(
      'div',
      { class: 'answer-row' },
      el('label', {}, 'Remember for ', remember),
      el('button', { type: 'button', class: 'allow', on: { click: () => decide('allow') } }, 'Allow'),
      el('button', { type: 'button', class: 'deny', on: { click: () => decide('deny') } }, 'Deny'),
    ),
    status,
  );
}

function questionCard(runtimeSessionId, question, onAnswered) {
  const text = el('textarea', { name: 'answer', rows: 2, 'aria-label': `answer to ${question.questionId}`, placeholder: 'Your answer' });
  const status = el('div', { class: 'answer-status' });
  const send = async (event) => {
    event.preventDefault();
    replaceContent(status, el('p', { class: 'muted' }, 'Answering…'));
    try {
      const answer = await post(`/v1/runtime-sessions/${enc(runtimeSessionId)}/questions/${enc(question.questionId)}`, { answer: text.value });
      await onAnswered(answered('QuestionAnswered', runtimeSessionId, answer, `${question.questionId} answered`));
    } catch (error) {
      replaceContent(status, errorBox(error));
    }
  };
  return el(
    'li',
    { class: 'wait-card', dataset: { question: question.questionId } },
    el(
      'div',
      { class: 'message-head' },
      el('strong', {}, question.questionId),
      el('span', { class: 'muted' }, `${question.turnId} · asked ${formatTime(question.askedAt)}`),
    ),
    detailsList(question.details),
    el('form', { class: 'answer-row', on: { submit: send } }, text, el('button', { type: 'submit', class: 'answer' }, 'Answer')),
    status,
  );
}

function runtimeSections(runtime, onAnswered) {
  const id = runtime.runtimeSessionId;
  return [
    section(`Runtime session ${id}`, el('div', { id: 'runtime-session' }, runtimeSummary(runtime))),
    section(
      `Waiting for approval (${runtime.pendingApprovals.length})`,
      runtime.pendingApprovals.length === 0
        ? el('p', { class: 'muted', id: 'pending-approvals' }, 'No approval is pending.')
        : el(
            'ol',
            { class: 'waits', id: 'pending-approvals' },
            runtime.pendingApprovals.map((approval) => approvalCard(id, approval, onAnswered)),
          ),
    ),
    section(
      `Questions (${runtime.pendingQuestions.length})`,
      runtime.pendingQuestions.length === 0
        ? el('p', { class: 'muted', id: 'pending-questions' }, 'No question is waiting for an answer.')
        : el(
            'ol',
            { class: 'waits', id: 'pending-questions' },
            runtime.pendingQuestions.map((question) => questionCard(id, question, onAnswered)),
          ),
    ),
    section(
      'Recent turns',
      dataTable(
        ['Turn', 'Input', 'Status', 'Started', 'Ended', 'Error'],
        runtime.turns
          .slice()
          .reverse()
          .map((turn) => [
            el('code', {}, turn.turnId),
            el('span', { class: 'message-text' }, turn.input),
            badge(turn.status, TURN_KINDS[turn.status] ?? ''),
            formatTime(turn.startedAt),
            formatTime(turn.endedAt),
            turn.error ?? '—',
          ]),
        { empty: 'No turn yet.' },
      ),
    ),
    section(
      'Answered',
      dataTable(
        ['Wait', 'Answer', 'By', 'When'],
        [
          ...runtime.resolvedApprovals.map((approval) => [
            `approval ${approval.approvalId}`,
            `${approval.decision}${approval.remember !== 'none' ? ` (remembered for ${approval.remember})` : ''}`,
            approval.by,
            approval.resolvedAt,
          ]),
          ...runtime.answeredQuestions.map((question) => [`question ${question.questionId}`, question.answer, question.by, question.answeredAt]),
        ]
          .sort((a, b) => String(b[3]).localeCompare(String(a[3])))
          .map(([wait, answer, by, at]) => [wait, el('span', { class: 'message-text' }, answer), by, formatTime(at)]),
        { empty: 'Nothing answered yet.' },
      ),
    ),
  ];
}

/**
 * CliGate's `/new` as buttons: `/new` alone unbinds (the next runtime turn starts a session), `/new <task>` binds a
 * new runtime session of the bound provider, `/new codex|claude <task>` of that one; each starts the task at once.
 */
function newSessionForm(key, binding, redraw) {
  const status = el('div', { class: 'form-status', id: 'runtime-new-status', role: 'status' });
  const task = el('input', { name: 'task', size: 28, placeholder: 'task (empty: /new alone)' });
  const form = el(
    'form',
    { class: 'filters', id: 'runtime-new' },
    el('label', { class: 'wide' }, el('span', {}, 'Task'), task),
    ...['', 'codex', 'claude'].map((provider) =>
      el(
        'button',
        { type: 'submit', value: provider, dataset: { provider } },
        provider ? `/new ${provider}` : binding.runtimeSessionId ? `/new (${binding.provider})` : '/new',
      ),
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = event.submitter;
    const provider = button?.dataset.provider ?? '';
    const text = task.value.trim();
    const buttons = [...form.querySelectorAll('button')];
    if (buttons.some((candidate) => candidate.disabled)) return;
    buttons.forEach((candidate) => (candidate.disabled = true));
    replaceContent(status, el('p', { class: 'muted' }, 'Starting…'));
    try {
      const answer = await post(`/v1/conversations/${enc(key)}/runtime/new`, text ? { task: text, ...(provider ? { provider } : {}) } : {});
      const written = text
        ? `RuntimeBound · ${answer.runtimeSessionId} (${answer.provider}), its first turn ${answer.turnId}`
        : answer.changed
          ? `RuntimeDetached · ${answer.detachedRuntimeSessionId} unbound (/new): the next runtime turn starts a session`
          : 'Nothing was bound: nothing was written.';
      await redraw(notice(written, 'ok'));
    } catch (error) {
      replaceContent(status, errorBox(error));
    } finally {
      buttons.forEach((candidate) => (candidate.disabled = false));
    }
  });
  return el('div', {}, form, status);
}

/** The runtime session's turns as a chat: each turn's input as the user's message, then how the turn went. */
function turnsChat(runtime) {
  if (runtime.turns.length === 0) return el('p', { class: 'muted', id: 'runtime-chat' }, 'No turn yet.');
  return el(
    'ol',
    { class: 'transcript', id: 'runtime-chat' },
    runtime.turns.flatMap((turn) => [
      el(
        'li',
        { class: 'message role-user', dataset: { turn: turn.turnId } },
        el('div', { class: 'message-head' }, 'user · ', formatTime(turn.startedAt)),
        el('p', { class: 'message-text' }, turn.input),
      ),
      el(
        'li',
        { class: 'message role-assistant', dataset: { turn: turn.turnId } },
        el(
          'div',
          { class: 'message-head' },
          `${runtime.provider} · `,
          badge(turn.status.replace('_', ' '), TURN_KINDS[turn.status] ?? ''),
          turn.endedAt ? ` · ${formatTime(turn.endedAt)}` : '',
        ),
        turn.error ? el('p', { class: 'message-text' }, turn.error) : null,
      ),
    ]),
  );
}

/** A conversation's runtime: its binding, the bound runtime session, /new, and Detach. */
export async function renderConversationRuntime(page, { params: [key] }, shown = null) {
  const binding = await get(`/v1/conversations/${enc(key)}/runtime`);
  const runtime = binding.runtimeSessionId ? await get(`/v1/runtime-sessions/${enc(binding.runtimeSessionId)}`) : null;
  const redraw = async (outcome) => {
    page.replaceChildren();
    try {
      await renderConversationRuntime(page, { params: [key] }, outcome);
    } catch (error) {
      page.append(outcome, errorBox(error));
    }
  };
  const detach = binding.runtimeSessionId
    ? confirmAction('Detach', {
        kind: 'warn',
        describe: () =>
          `Unbind ${binding.runtimeSessionId} from ${key} (RuntimeDetached, reason detach), as /detach does: the conversation's next runtime ` +
          `turn starts a new runtime session. ${binding.runtimeSessionId} and its history stay${binding.state === 'running' ? '; its worker may still finish the turn it runs' : ''}.`,
        run: async () => {
          const answer = await post(`/v1/conversations/${enc(key)}/runtime/detach`, {});
          await redraw(
            answer.changed
              ? el(
                  'div',
                  { class: 'notice ok written', role: 'status' },
                  el('p', {}, `Written to runtime-binding-${key}:`),
                  el(
                    'div',
                    { class: 'written-event' },
                    el('strong', { class: 'event-type' }, 'RuntimeDetached'),
                    el('span', { class: 'event-summary' }, ` · ${answer.detachedRuntimeSessionId} unbound (detach)`),
                  ),
                )
              : notice('Nothing was bound: nothing was written.', 'ok'),
          );
          return el('span');
        },
      })
    : null;
  page.append(
    el('h1', {}, 'Runtime of ', sessionKeyText(key, { id: 'runtime-key' })),
    el('div', { id: 'runtime-status' }, shown),
    el(
      'div',
      { class: 'columns' },
      bindingSection(binding, key),
      section('Actions', el('div', { class: 'action-list', id: 'runtime-actions' }, newSessionForm(key, binding, redraw), detach)),
    ),
    ...(runtime ? [section('Chat', turnsChat(runtime)), ...runtimeSections(runtime, redraw)] : []),
  );
}

/** One runtime session, bound or not; its conversation's runtime page is one link away. */
export async function renderRuntimeSession(page, { params: [runtimeSessionId] }, shown = null) {
  const runtime = await get(`/v1/runtime-sessions/${enc(runtimeSessionId)}`);
  const redraw = async (outcome) => {
    page.replaceChildren();
    try {
      await renderRuntimeSession(page, { params: [runtimeSessionId] }, outcome);
    } catch (error) {
      page.append(outcome, errorBox(error));
    }
  };
  const bound = runtime.boundConversations.length > 0;
  page.append(
    el('h1', {}, 'Runtime session ', el('code', {}, runtime.runtimeSessionId)),
    el(
      'p',
      {},
      bound ? 'Bound to ' : 'No longer bound. It was started by ',
      el('a', { href: `#/conversations/${enc(runtime.sessionKey)}/runtime` }, sessionKeyText(runtime.sessionKey)),
      '.',
    ),
    el('div', { id: 'runtime-status' }, shown),
    ...runtimeSections(runtime, redraw),
  );
}
