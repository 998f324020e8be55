// Small building blocks the pages share: sections, tables, badges, notices and error boxes.
import { el } from './element.js';
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
 * An action that asks first: a panel naming what will change, then Confirm or Cancel. `run` returns what to show
 * afterwards (a node or text), e.g. the event the action wrote.
 */
export function confirmAction(label, { describe, run, kind = '' }) {
  const outcome = el('div', { class: 'action-outcome' });
  const holder = el('div', { class: 'confirm-holder' });
  const button = el('button', { type: 'button', class: `action ${kind}`.trim(), on: { click: () => ask() } }, label);
  const ask = () => {
    const confirm = el('button', { type: 'button', class: 'confirm armed', on: { click: () => go() } }, `Confirm: ${label}`);
    const cancel = el('button', { type: 'button', on: { click: () => holder.replaceChildren() } }, 'Cancel');
    holder.replaceChildren(
      el('div', { class: 'confirm-panel', role: 'alertdialog' }, el('p', {}, describe()), el('div', { class: 'actions' }, confirm, cancel)),
    );
    confirm.focus();
  };
  const go = async () => {
    holder.replaceChildren();
    outcome.replaceChildren(el('p', { class: 'muted' }, `${label}…`));
    try {
      const shown = await run();
      outcome.replaceChildren(shown);
    } catch (error) {
      outcome.replaceChildren(errorBox(error));
    }
  };
  return el('div', { class: 'confirm-action' }, button, holder, outcome);
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

/** A button that asks for a second click before acting, for actions that cost something (a rebuild). */
export function confirmButton(label, confirmLabel, action) {
  let armed = false;
  const button = el(
    'button',
    {
      type: 'button',
      on: {
        click: async () => {
          if (!armed) {
            armed = true;
            button.textContent = confirmLabel;
            button.classList.add('armed');
            return;
          }
          armed = false;
          button.textContent = label;
          button.classList.remove('armed');
          await action();
        },
      },
    },
    label,
  );
  return button;
}
