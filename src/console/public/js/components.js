// Small building blocks the pages share: sections, tables, badges, notices and error boxes.
import { el, replaceContent } from './element.js';
import { eventSummary } from './eventSummary.js';
import { formatJson } from './format.js';

/** A session key that wraps only between its segments (after each ':'), never inside one. */
export function sessionKeyText(key, props = {}) {
  const segments = String(key).split(':');
  // Each segment holds together (no break at its hyphens); the <wbr> after each ':' is where a line may end.
  return el(
    'span',
    { class: 'session-key', ...props },
    segments.flatMap((segment, index) => [
      el('span', { class: 'key-segment' }, index < segments.length - 1 ? `${segment}:` : segment),
      index < segments.length - 1 ? el('wbr') : null,
    ]),
  );
}

/**
 * Asks in `holder` before acting: a panel saying what will change, then Confirm or Cancel. `describe()` may be async
 * (it reads what the action would touch) and may return text or a node. `confirmWord`: an irreversible action's
 * Confirm stays disabled until that word is typed. `run()` returns what to show in `outcome` afterwards (the events
 * it wrote); an error shows there instead.
 */
export async function askFirst(holder, outcome, label, { describe, run, confirmWord }) {
  holder.replaceChildren(el('div', { class: 'confirm-panel' }, loading('Working out what this changes…')));
  let description;
  try {
    description = await describe();
  } catch (error) {
    holder.replaceChildren(
      el('div', { class: 'confirm-panel' }, errorBox(error), el('button', { type: 'button', on: { click: () => holder.replaceChildren() } }, 'Close')),
    );
    return;
  }
  const go = async () => {
    holder.replaceChildren();
    outcome.replaceChildren(el('p', { class: 'muted' }, `${label}…`));
    try {
      outcome.replaceChildren(await run());
    } catch (error) {
      outcome.replaceChildren(errorBox(error));
    }
  };
  const confirm = el('button', { type: 'button', class: 'confirm armed', disabled: Boolean(confirmWord), on: { click: go } }, `Confirm: ${label}`);
  const typed = confirmWord
    ? el('input', {
        type: 'text',
        class: 'confirm-word',
        'aria-label': `type ${confirmWord} to confirm`,
        placeholder: confirmWord,
        spellcheck: 'false',
        on: { input: (event) => (confirm.disabled = event.target.value.trim() !== confirmWord) },
      })
    : null;
  const cancel = el('button', { type: 'button', class: 'cancel', on: { click: () => holder.replaceChildren() } }, 'Cancel');
  holder.replaceChildren(
    el(
      'div',
      { class: 'confirm-panel', role: 'alertdialog', 'aria-label': label },
      typeof description === 'string' ? el('p', { class: 'confirm-text' }, description) : description,
      typed ? el('label', { class: 'confirm-word-label' }, `Type ${confirmWord} to confirm: `, typed) : null,
      el('div', { class: 'actions' }, confirm, cancel),
    ),
  );
  (typed ?? confirm).focus();
}

/** A button that asks first (see askFirst), with its panel and outcome right below it. */
export function confirmAction(label, { describe, run, kind = '', confirmWord }) {
  const outcome = el('div', { class: 'action-outcome' });
  const holder = el('div', { class: 'confirm-holder' });
  const button = el(
    'button',
    { type: 'button', class: `action ${kind}`.trim(), on: { click: () => askFirst(holder, outcome, label, { describe, run, confirmWord }) } },
    label,
  );
  return el('div', { class: 'confirm-action' }, button, holder, outcome);
}

/** The events an action wrote, each with what it did in one line and its data as stored. */
export function writtenEvents(streamName, events, intro = `Written to ${streamName}:`) {
  if (events.length === 0) return notice(`Nothing new was written to ${streamName} (it was already so).`, 'ok');
  return el(
    'div',
    { class: 'notice ok written', role: 'status' },
    el('p', {}, intro),
    events.map((event) =>
      el(
        'div',
        { class: 'written-event' },
        el('strong', { class: 'event-type' }, event.type),
        ` at revision ${event.revision}`,
        eventSummary(event) ? el('span', { class: 'event-summary' }, ` · ${eventSummary(event)}`) : null,
        el('details', {}, el('summary', {}, 'as stored'), jsonBlock(event.data)),
      ),
    ),
  );
}

export function section(title, ...children) {
  return el('section', { class: 'panel' }, el('h2', {}, title), ...children);
}

export function badge(text, kind = '') {
  return el('span', { class: `badge ${kind}`.trim() }, text);
}

/** rows: arrays of cells (strings or nodes); `rowProps(row, index)` may add attributes to a row. */
export function dataTable(headers, rows, { empty = 'Nothing here yet.', rowProps } = {}) {
  if (rows.length === 0) return el('p', { class: 'muted' }, empty);
  return el(
    'table',
    {},
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((header) => el('th', { scope: 'col' }, header)),
      ),
    ),
    // data-label: on a narrow screen each row is a card whose cells name their column.
    el(
      'tbody',
      {},
      rows.map((cells, index) =>
        el(
          'tr',
          rowProps ? rowProps(index) : {},
          cells.map((cell, column) => el('td', { 'data-label': headers[column] }, cell)),
        ),
      ),
    ),
  );
}

export function jsonBlock(value) {
  return el('pre', { class: 'json' }, formatJson(value));
}

/** An API error as the operator needs it: the code (what to search for), the message, and what to do about 401/403. */
export function errorBox(error) {
  const code = error && error.code ? error.code : 'ERROR';
  const hint =
    error && error.status === 401
      ? 'Enter a bearer token above (API_TOKEN is set on this service).'
      : error && error.status === 403
        ? "This token's scope does not allow that; use a token with a wider scope."
        : null;
  return el(
    'div',
    { class: 'error', role: 'alert' },
    el('strong', { class: 'error-code' }, code),
    ' ',
    el('span', { class: 'error-message' }, error && error.message ? error.message : String(error)),
    hint && el('p', {}, hint),
  );
}

export function notice(text, kind = 'info') {
  return el('div', { class: `notice ${kind}`, role: 'status' }, text);
}

export function loading(text = 'Loading…') {
  return el('p', { class: 'muted' }, text);
}

/**
 * Sends `form` through `send(text)` (`text(name)`: a field's trimmed value), one submission at a time: a second
 * click or Enter while the first is on its way does nothing. `status` shows `busyText` meanwhile, and an error after.
 */
export function submitOnce(form, status, busyText, send) {
  const submit = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    const data = new FormData(form);
    const text = (name) => String(data.get(name) ?? '').trim();
    replaceContent(status, loading(busyText));
    try {
      await send(text);
    } catch (error) {
      replaceContent(status, errorBox(error));
    } finally {
      submit.disabled = false;
    }
  });
}
