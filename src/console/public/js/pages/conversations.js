// The conversations list: GET /v1/sessions with its filters (platform, active within), and the entries' flags; a
// form that starts a conversation as a gateway's first message would (POST /v1/sessions/resolve).
import { enc, get, post, query } from '../api.js';
import { badge, dataTable, errorBox, loading, sessionKeyText, submitOnce } from '../components.js';
import { appendChildren, el, replaceContent } from '../element.js';
import { formatCost, formatCount, formatTime } from '../format.js';

/** The routing entry's flags, as badges; `key` names the filter that keeps only entries with that flag. */
const FLAGS = [
  { key: 'suspended', label: 'suspended', kind: 'warn', has: (entry) => entry.suspended },
  { key: 'resumePending', label: 'resume pending', kind: 'info', has: (entry) => entry.resumePending, detail: (entry) => entry.resumeReason },
  { key: 'wasAutoReset', label: 'auto-reset', kind: '', has: (entry) => entry.wasAutoReset, detail: (entry) => entry.autoResetReason },
  { key: 'isFreshReset', label: 'fresh reset', kind: '', has: (entry) => entry.isFreshReset },
];

function flagBadges(entry) {
  return FLAGS.filter((flag) => flag.has(entry)).map((flag) => {
    const detail = flag.detail?.(entry);
    return badge(detail ? `${flag.label}: ${detail}` : flag.label, flag.kind);
  });
}

function entryRow(entry) {
  return [
    el(
      'span',
      { class: 'key-cell' },
      el('a', { href: `#/sessions/${enc(entry.sessionId)}`, class: 'session-link' }, sessionKeyText(entry.sessionKey)),
      ' ',
      el(
        'a',
        {
          href: `#/conversations/${enc(entry.sessionKey)}`,
          class: 'conversation-link muted',
          title: 'the conversation: its sessions, queue, runtime and actions',
        },
        'conversation',
      ),
    ),
    entry.displayName ?? '—',
    entry.platform,
    entry.chatType,
    formatTime(entry.updatedAt),
    formatCount(entry.turnCount),
    formatCount(entry.totalTokens),
    formatCost(entry.estimatedCostUsd),
    el('span', { class: 'flags' }, flagBadges(entry)),
  ];
}

function filterForm(current) {
  const field = (label, input) => el('label', {}, el('span', {}, label), input);
  const form = el(
    'form',
    { class: 'filters', id: 'conversation-filters' },
    field('Platform', el('input', { name: 'platform', value: current.get('platform') ?? '', placeholder: 'any', size: 12 })),
    field(
      'Active within (minutes)',
      el('input', { name: 'activeMinutes', type: 'number', min: 1, value: current.get('activeMinutes') ?? '', placeholder: 'any' }),
    ),
    field(
      'Page size',
      el(
        'select',
        { name: 'limit' },
        ['20', '50', '100', '200'].map((size) => el('option', { value: size, selected: (current.get('limit') ?? '50') === size }, size)),
      ),
    ),
    el(
      'fieldset',
      { class: 'flag-filters' },
      el('legend', {}, 'Only with'),
      FLAGS.map((flag) => el('label', {}, el('input', { type: 'checkbox', name: flag.key, checked: current.get(flag.key) === '1' }), ` ${flag.label}`)),
    ),
    el('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const params = new URLSearchParams();
    for (const name of ['platform', 'activeMinutes', 'limit']) {
      const value = String(data.get(name) ?? '').trim();
      if (value) params.set(name, value);
    }
    for (const flag of FLAGS) if (data.get(flag.key)) params.set(flag.key, '1');
    window.location.hash = `#/?${params}`;
  });
  return form;
}

/** The source of a first message, as a gateway sends it; the new conversation's page opens once it is resolved. */
function startForm() {
  const field = (label, input) => el('label', {}, el('span', {}, label), input);
  const status = el('div', { class: 'form-status', role: 'status' });
  const form = el(
    'form',
    { class: 'filters', id: 'conversation-start' },
    field('Platform', el('input', { name: 'platform', required: true, placeholder: 'telegram', size: 12 })),
    field(
      'Chat type',
      el(
        'select',
        { name: 'chatType' },
        ['dm', 'group', 'channel', 'thread'].map((type) => el('option', { value: type }, type)),
      ),
    ),
    field('Chat id', el('input', { name: 'chatId', required: true, size: 14 })),
    field('User id', el('input', { name: 'userId', size: 12, placeholder: 'optional' })),
    field('User name', el('input', { name: 'userName', size: 12, placeholder: 'optional' })),
    field('Chat name', el('input', { name: 'chatName', size: 14, placeholder: 'optional' })),
    el('button', { type: 'submit' }, 'Start'),
  );
  submitOnce(form, status, 'Resolving…', async (text) => {
    const source = { platform: text('platform'), chatType: text('chatType'), chatId: text('chatId') };
    for (const name of ['userId', 'userName', 'chatName']) if (text(name)) source[name] = text(name);
    const answer = await post('/v1/sessions/resolve', { source });
    // The same source again resolves to the conversation it already has, which then opens.
    window.location.hash = `#/conversations/${enc(answer.sessionKey)}`;
  });
  return el('div', {}, form, status);
}

export async function renderConversations(page, { query: current }) {
  const requiredFlags = FLAGS.filter((flag) => current.get(flag.key) === '1');
  const results = el('div', { id: 'conversations' }, loading());
  appendChildren(page, [
    el('h1', {}, 'Conversations'),
    el('details', { class: 'panel', id: 'conversation-start-panel' }, el('summary', {}, 'Start a conversation'), startForm()),
    filterForm(current),
    requiredFlags.length > 0 ? el('p', { class: 'muted' }, 'Flag filters apply to each loaded page.') : null,
    results,
  ]);

  const rows = [];
  let nextCursor = null;
  const show = () => {
    const table = dataTable(['Session key', 'Name', 'Platform', 'Chat', 'Last activity', 'Turns', 'Tokens', 'Cost', 'Flags'], rows.map(entryRow), {
      empty: 'No conversations match.',
    });
    const more = nextCursor ? el('button', { type: 'button', id: 'more-conversations', on: { click: () => loadPage() } }, 'Load more') : null;
    replaceContent(results, table, more);
  };
  const loadPage = async () => {
    try {
      const answer = await get(
        `/v1/sessions${query({ platform: current.get('platform'), activeMinutes: current.get('activeMinutes'), limit: current.get('limit'), cursor: nextCursor })}`,
      );
      rows.push(...answer.sessions.filter((entry) => requiredFlags.every((flag) => flag.has(entry))));
      nextCursor = answer.nextCursor;
      show();
    } catch (error) {
      replaceContent(results, errorBox(error));
    }
  };
  await loadPage();
}
