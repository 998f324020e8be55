// CreateSession: a new session stream; creating one that exists writes nothing (a retry, or a race already won).
import type { JsonObject } from '../../../../events/eventStore.js';
import type { SessionSource } from '../../../../events/conversation/sessionSource.js';
import type { ForkOrigin, SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import type { SessionTimeline } from '../../../../events/session/sessionTimeline.js';
import type { SessionState } from '../sessionState.js';

export interface CreateSession {
  type: 'CreateSession';
  sessionId: string;
  sessionKey: string;
  origin: SessionSource;
  reason: string;
  now: string;
  parentSessionId?: string;
  agentName?: string;
  metadata?: JsonObject;
  forkOf?: ForkOrigin;
  startingState?: SessionTimeline;
  depth?: number;
}

export function decideCreateSession(command: CreateSession, state: SessionState): SessionStreamEvent[] {
  if (state.status !== 'absent') return [];
  const { type: _type, now, ...data } = command;
  return [{ type: 'SessionCreated', data: { ...data, at: now } }];
}
