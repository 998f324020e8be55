// DestroySession: the session takes no more changes; its history stays readable for audit. Once only.
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { requireExisting } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface DestroySession {
  type: 'DestroySession';
  reason: 'destroyed' | 'cascade';
  cascadeFrom?: string;
  now: string;
}

export function decideDestroySession(command: DestroySession, state: SessionState): SessionStreamEvent[] {
  requireExisting(state);
  if (state.status === 'destroyed') return [];
  const cascade = command.cascadeFrom === undefined ? {} : { cascadeFrom: command.cascadeFrom };
  return [{ type: 'SessionDestroyed', data: { reason: command.reason, ...cascade, at: command.now } }];
}
