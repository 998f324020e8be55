// AbandonTurn: gives up the turn in flight if it started at or before `startedBy` (the caller's cutoff, checked
// again here on the stream).
import type { SessionStreamEvent, TurnAbandonReason } from '../../../../events/session/sessionEvents.js';
import type { SessionState } from '../sessionState.js';

export interface AbandonTurn {
  type: 'AbandonTurn';
  reason: TurnAbandonReason;
  startedBy: string;
  gatewayId?: string;
  now: string;
}

export function decideAbandonTurn(command: AbandonTurn, state: SessionState): SessionStreamEvent[] {
  // Nothing in flight, or a turn started after the cutoff (recorded and started again since the caller looked): nothing to do.
  const inFlight = state.turnInFlight;
  if (!inFlight || Date.parse(inFlight.startedAt) > Date.parse(command.startedBy)) return [];
  const gateway = command.gatewayId === undefined ? {} : { gatewayId: command.gatewayId };
  return [
    { type: 'TurnAbandoned', data: { turnIndex: inFlight.turnIndex, startedAt: inFlight.startedAt, reason: command.reason, ...gateway, at: command.now } },
  ];
}
