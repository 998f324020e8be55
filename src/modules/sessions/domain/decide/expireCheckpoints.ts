// ExpireCheckpoints: retention keeps a session's newest `keep` checkpoints; the older ones leave the listings for good.
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { toArray } from '../chunkedList.js';
import type { SessionState } from '../sessionState.js';

export interface ExpireCheckpoints {
  type: 'ExpireCheckpoints';
  keep: number;
  retentionId: string;
  now: string;
}

/** Checkpoints not yet expired beyond the newest `keep`, oldest first: what ExpireCheckpoints would expire. */
export function checkpointsBeyond(state: SessionState, keep: number): string[] {
  const live = toArray(state.checkpoints).filter((checkpoint) => !checkpoint.contentExpired);
  return live.slice(0, Math.max(0, live.length - keep)).map((checkpoint) => checkpoint.checkpointId);
}

/**
 * Ended sessions too (retention is mostly about them), and with a turn in flight (a checkpoint is a position, not the
 * turn's). Nothing to expire (or a destroyed session, which lists none): no event, so a retry writes nothing twice.
 */
export function decideExpireCheckpoints(command: ExpireCheckpoints, state: SessionState): SessionStreamEvent[] {
  if (state.status === 'absent' || state.status === 'destroyed') return [];
  const checkpointIds = checkpointsBeyond(state, command.keep);
  if (checkpointIds.length === 0) return [];
  return [{ type: 'CheckpointsExpired', data: { checkpointIds, keep: command.keep, retentionId: command.retentionId, at: command.now } }];
}
