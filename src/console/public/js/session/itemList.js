// A session's item history: each item's place, id, role or type, text and the object as stored, newest page first, older pages on demand.
import { enc, get } from '../api.js';
import { errorBox } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatJson, formatTime } from '../format.js';

const PAGE = 50;
/** Pages read at most to reach an item a search hit names (50 × 40 = the newest 2,000 items). */
const MAX_PAGES_TO_FOUND = 40;

/** Where the frameworks keep an item's prose: content (text, parts, Gemini parts), text, a tool's output, a Claude Code entry's message. */
function itemText(item) {
  const of = (value) => {
    if (!value || typeof value !== 'object') return [];
    const content = value.content && typeof value.content === 'object' && Array.isArray(value.content.parts) ? value.content.parts : value.content;
    const texts = [];
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (part && typeof part.text === 'string') texts.push(part.text);
    if (typeof value.text === 'string') texts.push(value.text);
    if (typeof value.output === 'string') texts.push(value.output);
    return texts;
  };
  return [...of(item), ...of(item.message)].join('\n');
}

function itemLabel(item) {
  const candidates = [
    item.role,
    item.content && typeof item.content === 'object' ? item.content.role : null,
    item.message ? item.message.role : null,
    item.type,
  ];
  return candidates.find((candidate) => typeof candidate === 'string' && candidate !== '') ?? 'item';
}

function itemEntry(entry) {
  const text = itemText(entry.item);
  return el(
    'li',
    { class: 'message item', dataset: { index: entry.index, item: entry.id } },
    el(
      'div',
      { class: 'message-head' },
      el('span', { class: 'role' }, itemLabel(entry.item)),
      el('span', { class: 'muted' }, `#${entry.index} · `, el('code', {}, entry.id)),
      el('time', { class: 'muted', datetime: entry.at }, formatTime(entry.at)),
    ),
    el('div', { class: 'message-body' }, el('div', { class: `message-text${text ? '' : ' muted'}` }, text || '(no text: see the object)')),
    el('details', {}, el('summary', {}, 'the item as stored'), el('pre', { class: 'json' }, formatJson(entry.item))),
  );
}

/** The list, loaded by `load()`; `found` (an index from a search hit) is read up to, marked and scrolled to. */
export function itemHistory(sessionId, { found } = {}) {
  const list = el('ol', { class: 'transcript', id: 'items' });
  const more = el('div', {});
  const element = el('div', {}, more, list);
  let oldestId = null;

  const readPage = async () => {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (oldestId !== null) query.set('before', oldestId);
    const page = await get(`/v1/sessions/${enc(sessionId)}/items?${query}`);
    list.prepend(...page.items.map(itemEntry));
    if (page.items.length > 0) oldestId = page.items[0].id;
    replaceContent(more, page.hasMore ? el('button', { type: 'button', class: 'older-items', on: { click: () => readOlder() } }, 'Older items') : null);
    return page;
  };
  const readOlder = () => readPage().catch((error) => replaceContent(more, errorBox(error)));

  const load = async () => {
    try {
      let page = await readPage();
      for (let pages = 1; found !== undefined && page.hasMore && page.items.length > 0 && page.items[0].index > found && pages < MAX_PAGES_TO_FOUND; pages++) {
        page = await readPage();
      }
      if (list.children.length === 0) replaceContent(list, el('p', { class: 'muted' }, 'No items.'));
      const target = found === undefined ? null : list.querySelector(`li.item[data-index="${found}"]`);
      if (target) {
        target.classList.add('found');
        target.scrollIntoView({ block: 'center' });
      }
    } catch (error) {
      replaceContent(more, errorBox(error));
    }
  };
  return { element, load };
}
