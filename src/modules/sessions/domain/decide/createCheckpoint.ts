// CreateCheckpoint: a named point of the session's history to roll back or fork from.
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { checkpointIdFor, requireWritable } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface CreateCheckpoint {
  type: 'CreateCheckpoint';
  label: string | null;
  now: string;
}

export function decideCreateCheckpoint(command: CreateCheckpoint, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  return [
    {
      type: 'CheckpointCreated',
      data: { checkpointId: checkpointIdFor(state.revision + 1), label: command.label, turnIndex: state.turnCount, at: command.now },
    },
  ];
}
