// Interrupt: ends the turn in flight as interrupted (the watchdog, a forced reset, a restart's recovery).
import type { InterruptReason, RuntimeSessionEvent } from '../../../../events/runtime/runtimeSessionEvents.js';
import { type ExistingRuntimeSession, turnInFlight } from '../runtimeSessionState.js';

/**
 * Interrupts the turn in flight unless the worker reported at or after `quietSince` (it is alive after all);
 * `quietSince: null` interrupts it whatever the worker last said (a forced reset).
 */
export interface Interrupt {
  type: 'Interrupt';
  reason: InterruptReason;
  error: string;
  quietSince: string | null;
  now: string;
}

export function decideInterrupt(command: Interrupt, state: ExistingRuntimeSession): RuntimeSessionEvent[] {
  if (!turnInFlight(state)) return [];
  if (command.quietSince !== null && state.lastWorkerEventAt !== null && Date.parse(state.lastWorkerEventAt) >= Date.parse(command.quietSince)) return [];
  const { reason, error, now } = command;
  return [{ type: 'RuntimeInterrupted', data: { turnId: state.currentTurnId, reason, error, previousState: state.status, at: now } }];
}
