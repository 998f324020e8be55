// Small building blocks the pages share: sections, tables, badges, notices and error boxes.
import { el } from './element.js';
import { formatJson } from './format.js';

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
    el('thead', {}, el('tr', {}, headers.map((header) => el('th', { scope: 'col' }, header)))),
    el('tbody', {}, rows.map((cells, index) => el('tr', rowProps ? rowProps(index) : {}, cells.map((cell) => el('td', {}, cell))))),
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
        ? 'This token\'s scope does not allow that; use a token with a wider scope.'
        : null;
  return el('div', { class: 'error', role: 'alert' }, el('strong', { class: 'error-code' }, code), ' ', el('span', { class: 'error-message' }, error && error.message ? error.message : String(error)), hint && el('p', {}, hint));
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
  const button = el('button', {
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
  }, label);
  return button;
}
