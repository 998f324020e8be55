// The time-travel slider: the session's state at any revision, replayed by GET /v1/sessions/{id}/state?revision=N.
import { enc, get } from '../api.js';
import { errorBox, loading } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatTime } from '../format.js';
import { countersList, transcriptList } from './transcriptList.js';

/** Returns the panel and `moveTo(revision)`, so the event timeline can send the slider to an event. */
export function timeTravelPanel(sessionId, latestRevision, eventTypeAt) {
  const output = el('div', { id: 'time-travel-state' });
  const label = el('output', { id: 'time-travel-label', for: 'time-travel-slider' });
  const slider = el('input', {
    id: 'time-travel-slider',
    type: 'range',
    min: 0,
    max: latestRevision,
    step: 1,
    value: latestRevision,
    'aria-label': 'revision',
  });
  // Answers can come back out of order while the slider moves: only the newest request may draw.
  let latestRequest = 0;
  let timer;

  const show = async (revision) => {
    const request = ++latestRequest;
    label.textContent = `revision ${revision} of ${latestRevision}${revision === latestRevision ? ' (now)' : ''}`;
    replaceContent(output, loading(`Replaying to revision ${revision}…`));
    try {
      const then = await get(`/v1/sessions/${enc(sessionId)}/state?revision=${revision}`);
      if (request !== latestRequest) return;
      const type = eventTypeAt(revision);
      replaceContent(
        output,
        el(
          'p',
          { class: 'muted', id: 'time-travel-summary', dataset: { revision: then.revision } },
          `At revision ${then.revision}${type ? ` (${type})` : ''}, recorded ${formatTime(then.lastEventAt)}: status ${then.status}, turn ${then.state.turnIndex}, checkpoint ${then.state.checkpointId ?? 'none'}.`,
        ),
        countersList(then.state.counters, [
          ['turns', then.state.turnIndex],
          ['items', then.state.itemCount],
        ]),
        // At "now" the transcript is the one shown above: repeating it here would only double the page.
        revision === latestRevision
          ? el(
              'p',
              { class: 'muted', id: 'time-travel-now' },
              'This is the session as it is now: its transcript is the one above. Move the slider back to see an earlier one.',
            )
          : transcriptList(then.state.transcript, { id: 'time-travel-transcript' }),
      );
    } catch (error) {
      if (request === latestRequest) replaceContent(output, errorBox(error));
    }
  };

  slider.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => show(Number(slider.value)), 120);
  });
  const moveTo = (revision) => {
    slider.value = String(revision);
    clearTimeout(timer);
    show(revision);
  };
  const panel = el(
    'div',
    { class: 'time-travel' },
    el('div', { class: 'slider-row' }, el('span', { class: 'muted' }, '0'), slider, el('span', { class: 'muted' }, String(latestRevision)), label),
    output,
  );
  show(latestRevision);
  return { panel, moveTo, dispose: () => clearTimeout(timer) };
}
