// RollBack: the session's timeline becomes the one it had at a checkpoint. The decider has no history: `restored` is
// the state at the checkpoint's revision, replayed by the caller. A state folded from the same history as the current
// one shares its unchanged chunks, which makes the change cheap to find.
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { type FoldedTimeline, restoredTimelineOf } from '../restoredTimeline.js';
import { rollbackTarget } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface RollBack {
  type: 'RollBack';
  checkpointId: string;
  restored: FoldedTimeline;
  now: string;
}

export function decideRollBack(command: RollBack, state: SessionState): SessionStreamEvent[] {
  const checkpoint = rollbackTarget(state, command.checkpointId);
  if (command.restored.headCheckpointId !== checkpoint.checkpointId) {
    throw new Error(`the state handed to RollBack is not checkpoint ${checkpoint.checkpointId}'s (its head is ${command.restored.headCheckpointId})`);
  }
  return [
    {
      type: 'RolledBack',
      data: {
        checkpointId: checkpoint.checkpointId,
        targetRevision: checkpoint.revision,
        fromRevision: state.revision,
        fromTurnIndex: state.turnCount,
        restored: restoredTimelineOf(state, command.restored),
        at: command.now,
      },
    },
  ];
}
