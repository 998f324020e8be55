// StartTurn: marks the next turn in flight; one at a time.
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { requireWritable, turnInFlight } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface StartTurn {
  type: 'StartTurn';
  now: string;
}

export function decideStartTurn(command: StartTurn, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  if (state.turnInFlight) throw turnInFlight(state);
  return [{ type: 'TurnStarted', data: { turnIndex: state.turnCount + 1, at: command.now } }];
}
