// A stream's events, oldest first (GET …/events of a session or a conversation): each one's type, time, actor and
// what it did in one line, expandable to its data and metadata as stored.
import { get } from './api.js';
import { errorBox } from './components.js';
import { el, replaceContent } from './element.js';
import { eventSummary } from './eventSummary.js';
import { formatJson, formatTime } from './format.js';

const PAGE = 200;

/** One event: revision, type, time, actor and what it did; open it for its data as stored. */
export function eventRow(event, onTravel) {
  const summary = eventSummary(event);
  return el(
    'li',
    { dataset: { revision: event.revision, type: event.type } },
    el(
      'details',
      {},
      el(
        'summary',
        {},
        el('span', { class: 'revision' }, `#${event.revision}`),
        el('span', { class: 'event-type' }, event.type),
        el('time', { class: 'muted', datetime: event.createdAt }, formatTime(event.createdAt)),
        event.metadata && typeof event.metadata.actor === 'string' ? el('span', { class: 'muted' }, `by ${event.metadata.actor}`) : null,
        summary ? el('span', { class: 'event-summary' }, summary) : null,
      ),
      onTravel ? el('button', { type: 'button', class: 'travel', on: { click: () => onTravel(event.revision) } }, 'Show the state after this event') : null,
      el('pre', { class: 'json' }, formatJson({ position: event.position, data: event.data, metadata: event.metadata })),
    ),
  );
}

/**
 * `eventsPath`: `/v1/sessions/<id>/events` or `/v1/conversations/<key>/events`. `onTravel(revision)`, when given,
 * adds a button that shows the state after an event. `events` fills as pages load, so other parts (the slider) can
 * name the event at a revision.
 */
export function eventTimeline(eventsPath, { onTravel, id = 'event-timeline' } = {}) {
  const events = [];
  const list = el('ol', { class: 'timeline', id });
  const footer = el('div', {});
  let nextRevision = 0;

  const row = (event) => eventRow(event, onTravel);

  const loadMore = async () => {
    try {
      const page = await get(`${eventsPath}?fromRevision=${nextRevision}&limit=${PAGE}`);
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
    events,
    typeAt: (revision) => events.find((event) => event.revision === revision)?.type,
  };
}
