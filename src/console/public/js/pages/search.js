// Transcript search (GET /v1/search): the query as typed, optional filters, and each hit's snippet with its matches
// marked, linking to the message in its session.
import { enc, get, query } from '../api.js';
import { badge, dataTable, errorBox, loading, sessionKeyText } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatTime } from '../format.js';

/** The snippet as text nodes, the matches in <mark>: the service splits it, nothing is parsed here. */
function snippet(hit) {
  const parts = Array.isArray(hit.snippetParts) ? hit.snippetParts : [{ text: String(hit.snippet ?? ''), match: false }];
  return el(
    'span',
    { class: 'snippet' },
    parts.map((part) => (part.match ? el('mark', {}, part.text) : part.text)),
  );
}

function searchForm(current) {
  const field = (label, input) => el('label', {}, el('span', {}, label), input);
  const form = el(
    'form',
    { class: 'filters', id: 'search-form', role: 'search' },
    field('Words, "phrases", -excluded, OR', el('input', { name: 'q', value: current.get('q') ?? '', size: 32, required: true, spellcheck: 'false' })),
    field('Platform', el('input', { name: 'platform', value: current.get('platform') ?? '', placeholder: 'any', size: 10 })),
    field(
      'Role',
      el(
        'select',
        { name: 'role' },
        ['', 'user', 'assistant', 'tool', 'system'].map((role) => el('option', { value: role, selected: (current.get('role') ?? '') === role }, role || 'any')),
      ),
    ),
    el('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const params = new URLSearchParams();
    for (const name of ['q', 'platform', 'role']) {
      const value = String(data.get(name) ?? '').trim();
      if (value) params.set(name, value);
    }
    window.location.hash = `#/search?${params}`;
  });
  return form;
}

export async function renderSearch(page, { query: current }) {
  const results = el('div', { id: 'search-results' });
  page.append(el('h1', {}, 'Search transcripts'), searchForm(current), results);
  const q = current.get('q');
  if (!q) {
    results.append(el('p', { class: 'muted' }, 'Every message of every session, matched as whole words; Chinese and Japanese text as it is written.'));
    return;
  }
  const hits = [];
  let nextCursor = null;
  const loadPage = async () => {
    replaceContent(results, ...(hits.length === 0 ? [loading('Searching…')] : [...results.childNodes]));
    try {
      const answer = await get(`/v1/search${query({ q, platform: current.get('platform'), role: current.get('role'), limit: 50, cursor: nextCursor })}`);
      hits.push(...answer.hits);
      nextCursor = answer.nextCursor;
      replaceContent(
        results,
        el('p', { class: 'muted' }, `${hits.length}${nextCursor ? '+' : ''} ${hits.length === 1 ? 'message' : 'messages'} found.`),
        dataTable(
          ['Message', 'Session', 'Role', 'When'],
          hits.map((hit) => [
            el(
              'a',
              {
                href:
                  hit.itemId === null
                    ? `#/sessions/${enc(hit.sessionId)}?message=${hit.messageIndex}`
                    : `#/sessions/${enc(hit.sessionId)}?item=${hit.messageIndex}`,
                class: 'hit-link',
              },
              snippet(hit),
              hit.deleted ? badge('deleted', 'muted') : null,
              hit.rolledBack ? badge('rolled back', 'muted') : null,
            ),
            el(
              'span',
              { class: 'key-cell' },
              hit.sessionKey ? sessionKeyText(hit.sessionKey) : '—',
              el('span', { class: 'muted' }, hit.itemId === null ? `${hit.sessionId} · turn ${hit.turnIndex}` : `${hit.sessionId} · item ${hit.messageIndex}`),
            ),
            hit.role,
            formatTime(hit.at),
          ]),
          { empty: 'Nothing matches.', rowProps: (index) => ({ dataset: { session: hits[index].sessionId, message: hits[index].messageIndex } }) },
        ),
        nextCursor ? el('button', { type: 'button', on: { click: loadPage } }, 'More') : null,
      );
    } catch (error) {
      replaceContent(results, errorBox(error));
    }
  };
  await loadPage();
}
