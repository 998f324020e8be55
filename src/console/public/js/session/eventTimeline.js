// The session stream's events, oldest first (GET …/events), each expandable to its data and metadata.
import { enc, get } from '../api.js';
import { errorBox } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatJson, formatTime } from '../format.js';

const PAGE = 200;

/** `events` is filled as pages load, so other parts (the slider) can name the event at a revision. */
export function eventTimeline(sessionId, { onTravel }) {
  const events = [];
  const list = el('ol', { class: 'timeline', id: 'event-timeline' });
  const footer = el('div', {});
  let nextRevision = 0;

  const row = (event) =>
    el(
      'li',
      { dataset: { revision: event.revision } },
      el(
        'details',
        {},
        el(
          'summary',
          {},
          el('span', { class: 'revision' }, `#${event.revision}`),
          el('span', { class: 'event-type' }, event.type),
          el('time', { class: 'muted', datetime: event.createdAt }, formatTime(event.createdAt)),
          event.metadata && event.metadata.actor ? el('span', { class: 'muted' }, `by ${event.metadata.actor}`) : null,
        ),
        el('button', { type: 'button', class: 'travel', on: { click: () => onTravel(event.revision) } }, 'Show the state after this event'),
        el('pre', { class: 'json' }, formatJson({ position: event.position, data: event.data, metadata: event.metadata })),
      ),
    );

  const loadMore = async () => {
    try {
      const page = await get(`/v1/sessions/${enc(sessionId)}/events?fromRevision=${nextRevision}&limit=${PAGE}`);
      events.push(...page.events);
      list.append(...page.events.map(row));
      nextRevision = page.nextRevision;
      replaceContent(footer, nextRevision === null ? null : el('button', { type: 'button', on: { click: loadMore } }, 'Load later events'));
    } catch (error) {
      replaceContent(footer, errorBox(error));
    }
  };

  return {
    element: el('div', {}, list, footer),
    load: loadMore,
    typeAt: (revision) => events.find((event) => event.revision === revision)?.type,
  };
}
