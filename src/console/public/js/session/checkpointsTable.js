// Checkpoints newest first, with Roll back here and Fork here: each asks first, naming what will change (replayed from
// the session's state then and now), and afterwards shows the events it wrote.
import { enc, get, post } from '../api.js';
import { askFirst, badge, dataTable, notice, writtenEvents } from '../components.js';
import { el } from '../element.js';
import { formatTime } from '../format.js';

const liveMessages = (state) => state.transcript.filter((message) => !message.deleted).length;
const plural = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** The events a write appended to a stream after `revision` (what the console shows as "written"). */
export async function eventsAfter(eventsPath, revision) {
  const page = await get(`${eventsPath}?fromRevision=${revision + 1}&limit=50`);
  return page.events;
}

function turnChange(from, to) {
  if (to < from) return `undoes ${plural(from - to, 'turn')} (turn ${from} → ${to})`;
  if (to > from) return `brings back ${plural(to - from, 'turn')} (turn ${from} → ${to})`;
  return `keeps the turn at ${from}`;
}

/** What a rollback to `checkpoint` changes, from the state now and the state at the checkpoint's revision. */
async function describeRollback(sessionId, checkpoint) {
  const [now, then] = await Promise.all([
    get(`/v1/sessions/${enc(sessionId)}/state`),
    get(`/v1/sessions/${enc(sessionId)}/state?revision=${checkpoint.revision}`),
  ]);
  const memoryNow = now.state.memory.length;
  const memoryThen = then.state.memory.length;
  return (
    `Roll back session ${sessionId} to checkpoint ${checkpoint.checkpointId} (revision ${checkpoint.revision}): ` +
    `${turnChange(now.state.turnIndex, then.state.turnIndex)}; the transcript goes from ${plural(liveMessages(now.state), 'live message')} ` +
    `to ${liveMessages(then.state)}` +
    (memoryNow !== memoryThen ? `, memory from ${plural(memoryNow, 'entry', 'entries')} to ${memoryThen}` : '') +
    `. Writes RolledBack on session-${sessionId}. Nothing is deleted: later checkpoints stay, to roll forward again.`
  );
}

async function describeFork(sessionId, checkpoint) {
  const then = await get(`/v1/sessions/${enc(sessionId)}/state?revision=${checkpoint.revision}`);
  return (
    `Fork session ${sessionId} at checkpoint ${checkpoint.checkpointId}: creates a new session, a child of this one, that ` +
    `starts at turn ${then.state.turnIndex} with ${plural(liveMessages(then.state), 'message')} and ` +
    `${plural(then.state.memory.length, 'memory entry', 'memory entries')}. Writes ChildSessionCreated on session-${sessionId} ` +
    `(which is otherwise unchanged) and SessionCreated on the new session.`
  );
}

/**
 * `revision`: the session's revision as drawn, so the notice shows exactly the events the action appended.
 * `onChanged(outcome)` redraws the page with `outcome` (a node) on top.
 */
export function checkpointsTable(sessionId, checkpoints, { writable, revision, onChanged }) {
  const holder = el('div', { class: 'confirm-holder', id: 'checkpoint-confirm' });
  const outcome = el('div', { class: 'action-outcome' });
  const eventsPath = `/v1/sessions/${enc(sessionId)}/events`;
  const ask = (label, options) => {
    askFirst(holder, outcome, label, options);
    holder.scrollIntoView({ block: 'nearest' });
  };

  const rollback = (checkpoint) =>
    ask(`Roll back to ${checkpoint.checkpointId}`, {
      describe: () => describeRollback(sessionId, checkpoint),
      run: async () => {
        const result = await post(`/v1/sessions/${enc(sessionId)}/rollback`, { checkpointId: checkpoint.checkpointId });
        const shown = el(
          'div',
          {},
          notice(`Rolled back to ${result.checkpointId} (revision ${result.targetRevision}); now at turn ${result.turnIndex}.`, 'ok'),
          writtenEvents(`session-${sessionId}`, await eventsAfter(eventsPath, revision)),
        );
        await onChanged(shown, {});
        return el('span');
      },
    });
  const fork = (checkpoint) =>
    ask(`Fork at ${checkpoint.checkpointId}`, {
      describe: () => describeFork(sessionId, checkpoint),
      run: async () => {
        const result = await post(`/v1/sessions/${enc(sessionId)}/fork`, { checkpointId: checkpoint.checkpointId });
        const [parentEvents, forkEvents] = await Promise.all([
          eventsAfter(eventsPath, revision),
          eventsAfter(`/v1/sessions/${enc(result.sessionId)}/events`, -1),
        ]);
        const shown = el(
          'div',
          {},
          notice(`Forked at ${checkpoint.checkpointId}: new session ${result.sessionId}.`, 'ok'),
          el('p', {}, el('a', { href: `#/sessions/${enc(result.sessionId)}` }, 'Open the fork')),
          writtenEvents(`session-${sessionId}`, parentEvents),
          writtenEvents(`session-${result.sessionId}`, forkEvents),
        );
        await onChanged(shown, { position: result.position });
        return el('span');
      },
    });

  return el(
    'div',
    {},
    holder,
    outcome,
    dataTable(
      ['Checkpoint', 'Label', 'Revision', 'Turn', 'Taken', 'Kind', 'Timeline', ''],
      checkpoints.map((checkpoint) => [
        el('code', {}, checkpoint.checkpointId),
        checkpoint.label ?? '—',
        String(checkpoint.revision),
        String(checkpoint.turnIndex),
        formatTime(checkpoint.createdAt),
        checkpoint.auto ? 'automatic' : 'explicit',
        checkpoint.onCurrentTimeline ? badge('current timeline', 'ok') : badge('other branch', 'muted'),
        writable
          ? el(
              'span',
              { class: 'actions' },
              el(
                'button',
                { type: 'button', class: 'rollback', dataset: { checkpoint: checkpoint.checkpointId }, on: { click: () => rollback(checkpoint) } },
                'Roll back here',
              ),
              el(
                'button',
                { type: 'button', class: 'fork', dataset: { checkpoint: checkpoint.checkpointId }, on: { click: () => fork(checkpoint) } },
                'Fork here',
              ),
            )
          : '',
      ]),
      { empty: 'No checkpoints.' },
    ),
  );
}
