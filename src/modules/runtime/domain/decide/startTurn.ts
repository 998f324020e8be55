// StartTurn: a turn on the runtime session (started with its first), refused while another is in flight.
import { ConflictError } from '../../../../errors/ledgerError.js';
import type { RuntimeSessionEvent } from '../../../../events/runtime/runtimeSessionEvents.js';
import { type RuntimeSessionState, turnInFlight } from '../runtimeSessionState.js';

export interface StartTurn {
  type: 'StartTurn';
  runtimeSessionId: string;
  sessionKey: string;
  provider: string;
  model: string;
  input: string;
  now: string;
}

export function decideStartTurn(command: StartTurn, state: RuntimeSessionState): RuntimeSessionEvent[] {
  const started: RuntimeSessionEvent[] = [];
  if (state.status === 'absent') {
    const { runtimeSessionId, provider, model, sessionKey, now } = command;
    started.push({ type: 'RuntimeSessionStarted', data: { runtimeSessionId, provider, model, sessionKey, at: now } });
  } else if (turnInFlight(state)) {
    throw new ConflictError('RUNTIME_BUSY', 'a turn is already in flight on this runtime session; queue the message instead', {
      runtimeSessionId: state.runtimeSessionId,
      currentTurnId: state.currentTurnId,
      state: state.status,
      interruptRequested: state.interruptRequested ?? null,
    });
  }
  started.push({ type: 'TurnStarted', data: { turnId: `turn_${state.turnCount + 1}`, input: command.input, at: command.now } });
  return started;
}
