// Checkpoints newest first, with roll back and fork buttons (POST …/rollback, POST …/fork: the service checks the token's scope).
import { enc, post } from '../api.js';
import { badge, dataTable, errorBox, notice } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatTime } from '../format.js';

/**
 * Neither action destroys anything: a rollback is an event (roll forward again to any later checkpoint) and a fork
 * is a new session. So one click acts, and the outcome is reported in `status`.
 */
export function checkpointsTable(sessionId, checkpoints, { writable, status, onChanged }) {
  const act = async (describe, work) => {
    replaceContent(status, notice(`${describe}…`));
    try {
      const result = await work();
      await onChanged(result);
    } catch (error) {
      replaceContent(status, errorBox(error));
    }
  };
  const rollback = (checkpoint) =>
    act(`Rolling back to ${checkpoint.checkpointId}`, async () => {
      const result = await post(`/v1/sessions/${enc(sessionId)}/rollback`, { checkpointId: checkpoint.checkpointId });
      return { message: `Rolled back to ${result.checkpointId} (revision ${result.targetRevision}); now at turn ${result.turnIndex}.` };
    });
  const fork = (checkpoint) =>
    act(`Forking at ${checkpoint.checkpointId}`, async () => {
      const result = await post(`/v1/sessions/${enc(sessionId)}/fork`, { checkpointId: checkpoint.checkpointId });
      return {
        message: `Forked at ${checkpoint.checkpointId}: new session ${result.sessionId}.`,
        forkedSessionId: result.sessionId,
        position: result.position,
      };
    });

  return dataTable(
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
  );
}
