// What changed between two revisions of a session: both states replayed (GET …/state?revision=N) and compared —
// turn, counters, transcript messages added, removed or struck, memory entries, slots — and the events in between.
import { enc, get } from '../api.js';
import { badge, errorBox, loading } from '../components.js';
import { el, replaceContent } from '../element.js';
import { eventSummary } from '../eventSummary.js';
import { messageText, toolCallText } from '../format.js';

const COUNTERS = [
  ['inputTokens', 'input tokens'],
  ['outputTokens', 'output tokens'],
  ['cacheReadTokens', 'cache read'],
  ['cacheWriteTokens', 'cache write'],
  ['totalTokens', 'total tokens'],
  ['estimatedCostUsd', 'cost (USD)'],
  ['lastPromptTokens', 'last prompt'],
];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (value) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** The differences between two states of GET …/state, as plain data (no DOM), so what the view shows is what was found. */
export function diffStates(from, to) {
  const fields = [];
  if (from.state.turnIndex !== to.state.turnIndex) fields.push(['turn', from.state.turnIndex, to.state.turnIndex]);
  if (from.status !== to.status) fields.push(['status', from.status, to.status]);
  if (from.state.checkpointId !== to.state.checkpointId) fields.push(['checkpoint', from.state.checkpointId, to.state.checkpointId]);
  if (from.state.currentSlot !== to.state.currentSlot) fields.push(['current slot', from.state.currentSlot, to.state.currentSlot]);
  for (const [name, label] of COUNTERS) {
    const a = from.state.counters[name];
    const b = to.state.counters[name];
    if (a !== b) fields.push([label, a, b]);
  }

  const before = new Map(from.state.transcript.map((message) => [message.index, message]));
  const after = new Map(to.state.transcript.map((message) => [message.index, message]));
  const messages = [];
  for (const message of to.state.transcript) {
    const old = before.get(message.index);
    if (!old) messages.push({ change: 'added', message });
    else if (old.deleted !== message.deleted) messages.push({ change: message.deleted ? 'struck' : 'restored', message });
    else if (!same(old.content, message.content) || !same(old.toolCalls, message.toolCalls)) messages.push({ change: 'changed', message, old });
  }
  for (const message of from.state.transcript) if (!after.has(message.index)) messages.push({ change: 'removed', message });
  messages.sort((a, b) => a.message.index - b.message.index);

  const memoryBefore = new Map(from.state.memory.map((entry) => [entry.name, entry]));
  const memoryAfter = new Map(to.state.memory.map((entry) => [entry.name, entry]));
  const memory = [];
  for (const entry of to.state.memory) {
    const old = memoryBefore.get(entry.name);
    if (!old) memory.push({ change: 'added', name: entry.name, value: entry.value });
    else if (!same(old.value, entry.value)) memory.push({ change: 'changed', name: entry.name, old: old.value, value: entry.value });
  }
  for (const entry of from.state.memory) if (!memoryAfter.has(entry.name)) memory.push({ change: 'removed', name: entry.name, old: entry.value });

  const slotsBefore = new Map(from.state.slots.map((slot) => [slot.name, slot]));
  const slotsAfter = new Map(to.state.slots.map((slot) => [slot.name, slot]));
  const slots = [];
  for (const slot of to.state.slots) {
    const old = slotsBefore.get(slot.name);
    if (!old) slots.push({ change: 'added', name: slot.name, count: slot.messageCount });
    else if (old.messageCount !== slot.messageCount) slots.push({ change: 'changed', name: slot.name, oldCount: old.messageCount, count: slot.messageCount });
  }
  for (const slot of from.state.slots) if (!slotsAfter.has(slot.name)) slots.push({ change: 'removed', name: slot.name, oldCount: slot.messageCount });

  return { fields, messages, memory, slots };
}

const CHANGE_KINDS = { added: 'ok', restored: 'ok', changed: 'info', struck: 'warn', removed: 'error' };

function messageLine({ change, message, old }) {
  const text = messageText(message.content) || (Array.isArray(message.toolCalls) ? message.toolCalls.map(toolCallText).join(', ') : '') || '(no content)';
  return el(
    'li',
    { class: `diff-${change}`, dataset: { change, index: message.index } },
    badge(change, CHANGE_KINDS[change]),
    el('span', { class: 'muted' }, ` ${message.role} · turn ${message.turnIndex} · #${message.index} `),
    old ? el('div', { class: 'message-text diff-old' }, messageText(old.content) || '(no content)') : null,
    el('div', { class: 'message-text' }, text),
  );
}

function diffView(result, events) {
  const { fields, messages, memory, slots } = result;
  const nothing = fields.length + messages.length + memory.length + slots.length === 0;
  return el(
    'div',
    { id: 'revision-diff-result' },
    nothing ? el('p', { class: 'muted' }, 'The state is the same at both revisions.') : null,
    fields.length > 0
      ? el(
          'dl',
          { class: 'summary', id: 'diff-fields' },
          fields.map(([label, a, b]) => el('div', {}, el('dt', {}, label), el('dd', {}, `${show(a)} → ${show(b)}`))),
        )
      : null,
    messages.length > 0
      ? el(
          'div',
          {},
          el('h3', {}, `Transcript (${messages.length} ${messages.length === 1 ? 'message' : 'messages'})`),
          el('ol', { class: 'diff-list', id: 'diff-messages' }, messages.map(messageLine)),
        )
      : null,
    memory.length > 0
      ? el(
          'div',
          {},
          el('h3', {}, 'Memory'),
          el(
            'ul',
            { class: 'diff-list', id: 'diff-memory' },
            memory.map((entry) =>
              el(
                'li',
                { class: `diff-${entry.change}`, dataset: { change: entry.change } },
                badge(entry.change, CHANGE_KINDS[entry.change]),
                ' ',
                el('code', {}, entry.name),
                entry.change === 'changed' ? `: ${show(entry.old)} → ${show(entry.value)}` : `: ${show(entry.change === 'removed' ? entry.old : entry.value)}`,
              ),
            ),
          ),
        )
      : null,
    slots.length > 0
      ? el(
          'div',
          {},
          el('h3', {}, 'Context slots'),
          el(
            'ul',
            { class: 'diff-list', id: 'diff-slots' },
            slots.map((slot) =>
              el(
                'li',
                { dataset: { change: slot.change } },
                badge(slot.change, CHANGE_KINDS[slot.change]),
                ` ${slot.name}: `,
                slot.change === 'changed' ? `${slot.oldCount} → ${slot.count} messages` : `${slot.change === 'removed' ? slot.oldCount : slot.count} messages`,
              ),
            ),
          ),
        )
      : null,
    el(
      'div',
      {},
      el('h3', {}, `Events in between (${events.length})`),
      el(
        'ol',
        { class: 'diff-events', id: 'diff-events' },
        events.map((event) =>
          el(
            'li',
            {},
            el('span', { class: 'revision' }, `#${event.revision} `),
            el('strong', {}, event.type),
            eventSummary(event) ? ` · ${eventSummary(event)}` : '',
          ),
        ),
      ),
    ),
  );
}

/** Two revision boxes and Compare. `eventsBetween(from, to)` lists the events after `from` up to `to`. */
export function revisionDiffPanel(sessionId, latestRevision, eventsBetween) {
  const output = el('div', { id: 'revision-diff-output' });
  const box = (name, value) => el('input', { type: 'number', name, min: 0, value, 'aria-label': `${name} revision`, class: 'revision-input' });
  const fromInput = box('from', Math.max(0, latestRevision - 1));
  const toInput = box('to', latestRevision);
  const compare = async (event) => {
    event?.preventDefault();
    const from = Number(fromInput.value);
    const to = Number(toInput.value);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < 0 || from > latestRevision || to > latestRevision) {
      replaceContent(output, el('p', { class: 'error-text' }, `Revisions go from 0 to ${latestRevision}.`));
      return;
    }
    const [older, newer] = from <= to ? [from, to] : [to, from];
    replaceContent(output, loading(`Replaying revisions ${older} and ${newer}…`));
    try {
      const [a, b, events] = await Promise.all([
        get(`/v1/sessions/${enc(sessionId)}/state?revision=${older}`),
        get(`/v1/sessions/${enc(sessionId)}/state?revision=${newer}`),
        eventsBetween(older, newer),
      ]);
      replaceContent(output, el('p', { class: 'muted' }, `From revision ${older} to revision ${newer}:`), diffView(diffStates(a, b), events));
    } catch (error) {
      replaceContent(output, errorBox(error));
    }
  };
  return el(
    'div',
    { class: 'revision-diff' },
    el(
      'form',
      { class: 'slider-row', id: 'revision-diff-form', on: { submit: compare } },
      el('label', {}, 'From ', fromInput),
      el('label', {}, 'to ', toInput),
      el('button', { type: 'submit' }, 'Compare'),
    ),
    output,
  );
}
