// A transcript as a list of messages: role, turn, slot, text. Content is hostile input and only ever becomes text.
import { badge } from '../components.js';
import { el } from '../element.js';
import { formatTime, messageText, toolCallText } from '../format.js';

/** The text, and each tool call as `name(arguments)`; a message with neither says so instead of printing `null`. */
function messageBody(message) {
  const text = messageText(message.content);
  const calls = Array.isArray(message.toolCalls) ? message.toolCalls : [];
  return el(
    'div',
    { class: 'message-body' },
    text ? el('div', { class: 'message-text' }, text) : null,
    calls.map((call) => el('div', { class: 'tool-call' }, el('span', { class: 'muted' }, 'calls '), el('code', {}, toolCallText(call)))),
    !text && calls.length === 0 ? el('div', { class: 'message-text muted' }, '(no content)') : null,
  );
}

export function transcriptList(messages, { id } = {}) {
  if (messages.length === 0) return el('p', { class: 'muted', id }, 'No messages.');
  return el(
    'ol',
    { class: 'transcript', id },
    messages.map((message) =>
      el(
        'li',
        {
          class: `message role-${/^[a-z]+$/.test(message.role) ? message.role : 'other'}${message.deleted ? ' deleted' : ''}`,
          dataset: { index: message.index },
        },
        el(
          'div',
          { class: 'message-head' },
          el('span', { class: 'role' }, message.role),
          message.name ? el('span', { class: 'muted' }, message.name) : null,
          el('span', { class: 'muted' }, `turn ${message.turnIndex} · #${message.index} · ${message.slot}`),
          message.deleted ? badge('deleted', 'muted') : null,
          el('time', { class: 'muted', datetime: message.at }, formatTime(message.at)),
        ),
        messageBody(message),
        message.toolCalls
          ? el('details', {}, el('summary', {}, 'tool calls as recorded'), el('pre', { class: 'json' }, JSON.stringify(message.toolCalls, null, 2)))
          : null,
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
    items.map(([label, value]) =>
      el('div', {}, el('dt', {}, label), el('dd', { dataset: { counter: label } }, value === null || value === undefined ? '—' : String(value))),
    ),
  );
}
