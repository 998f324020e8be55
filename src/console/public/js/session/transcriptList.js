// A transcript as a list of messages: role, turn, slot, text. Content is hostile input and only ever becomes text.
import { badge } from '../components.js';
import { el } from '../element.js';
import { formatTime, messageText } from '../format.js';

export function transcriptList(messages, { id } = {}) {
  if (messages.length === 0) return el('p', { class: 'muted', id }, 'No messages.');
  return el(
    'ol',
    { class: 'transcript', id },
    messages.map((message) =>
      el(
        'li',
        { class: `message role-${/^[a-z]+$/.test(message.role) ? message.role : 'other'}${message.deleted ? ' deleted' : ''}`, dataset: { index: message.index } },
        el(
          'div',
          { class: 'message-head' },
          el('span', { class: 'role' }, message.role),
          message.name ? el('span', { class: 'muted' }, message.name) : null,
          el('span', { class: 'muted' }, `turn ${message.turnIndex} · #${message.index} · ${message.slot}`),
          message.deleted ? badge('deleted', 'muted') : null,
          el('time', { class: 'muted', datetime: message.at }, formatTime(message.at)),
        ),
        el('div', { class: 'message-text' }, messageText(message.content)),
        message.toolCalls ? el('details', {}, el('summary', {}, 'tool calls'), el('pre', { class: 'json' }, JSON.stringify(message.toolCalls, null, 2))) : null,
      ),
    ),
  );
}

export function countersList(counters, extra = []) {
  const items = [
    ...extra,
    ['input tokens', counters.inputTokens],
    ['output tokens', counters.outputTokens],
    ['cache read', counters.cacheReadTokens],
    ['cache write', counters.cacheWriteTokens],
    ['total tokens', counters.totalTokens],
    ['cost (USD)', counters.estimatedCostUsd],
    ['last prompt', counters.lastPromptTokens],
  ];
  return el(
    'dl',
    { class: 'counters' },
    items.map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', { dataset: { counter: label } }, value === null || value === undefined ? '—' : String(value)))),
  );
}
