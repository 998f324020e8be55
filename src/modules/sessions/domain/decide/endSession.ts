// EndSession and ReopenSession: an active session ends once; only an ended one reopens (a destroyed one stays
// destroyed).
import type { SessionEndReason, SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import type { SessionState } from '../sessionState.js';

export interface EndSession {
  type: 'EndSession';
  reason: SessionEndReason;
  now: string;
}

export interface ReopenSession {
  type: 'ReopenSession';
  now: string;
}

export function decideEndSession(command: EndSession, state: SessionState): SessionStreamEvent[] {
  if (state.status !== 'active') return [];
  return [{ type: 'SessionEnded', data: { reason: command.reason, at: command.now } }];
}

export function decideReopenSession(command: ReopenSession, state: SessionState): SessionStreamEvent[] {
  if (state.status !== 'ended') return [];
  return [{ type: 'SessionReopened', data: { reason: 'switch', at: command.now } }];
}
