// A LangGraph thread's checkpoints (items of the session's history written by session-ledger/langgraph), newest first.
import { dataTable } from '../components.js';
import { el } from '../element.js';
import { formatTime } from '../format.js';

/** The checkpoint items among `items` (oldest first, as the items route answers them), newest first; [] when none. */
export function graphCheckpointsOf(items) {
  return items.filter((entry) => entry.item?.type === 'langgraph.checkpoint').reverse();
}

export function graphCheckpointsTable(checkpoints, { more }) {
  return el(
    'div',
    {},
    el(
      'p',
      { class: 'muted' },
      'Written by LangGraph through session-ledger/langgraph: each is an item of this session, its channel values and pending writes items beside it (see the event timeline).',
    ),
    dataTable(
      ['Checkpoint', 'Namespace', 'Source', 'Step', 'Wrote', 'Parent', 'Taken'],
      checkpoints.map(({ item, at }) => [
        el('code', {}, String(item.checkpointId)),
        item.checkpointNs ? el('code', {}, String(item.checkpointNs)) : '(root)',
        String(item.source ?? '—'),
        item.step === null || item.step === undefined ? '—' : String(item.step),
        Array.isArray(item.wroteChannels) && item.wroteChannels.length > 0 ? item.wroteChannels.join(', ') : '—',
        item.parentCheckpointId ? el('code', {}, String(item.parentCheckpointId)) : '—',
        formatTime(at),
      ]),
      { rowProps: (index) => ({ class: 'graph-checkpoint', dataset: { checkpoint: String(checkpoints[index].item.checkpointId) } }) },
    ),
    more ? el('p', { class: 'muted' }, 'From the newest 100 items of the history: older checkpoints are in the event timeline.') : null,
  );
}
