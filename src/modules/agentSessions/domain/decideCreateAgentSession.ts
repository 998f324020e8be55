// Creating a session by its external id: a SessionCreated on a stream that has none, nothing on one that has.
import type { JsonObject } from '../../../events/eventStore.js';
import type { SessionStreamEvent } from '../../../events/session/sessionEvents.js';
import type { SessionState } from '../../sessions/domain/sessionState.js';
import { agentSessionKey, agentSessionOrigin } from './agentSessionId.js';

export interface CreateAgentSession {
  type: 'CreateAgentSession';
  sessionId: string;
  namespace: string;
  externalId: string;
  agentName: string | null;
  metadata: JsonObject;
  now: string;
}

/** Creating it again is not a second session: whoever created it first, the stream holds one SessionCreated. */
export function decideCreateAgentSession(command: CreateAgentSession, state: SessionState): SessionStreamEvent[] {
  if (state.status !== 'absent') return [];
  return [
    {
      type: 'SessionCreated',
      data: {
        sessionId: command.sessionId,
        sessionKey: agentSessionKey(command.namespace, command.externalId),
        origin: agentSessionOrigin(command.externalId),
        reason: 'agent',
        at: command.now,
        ...(command.agentName === null ? {} : { agentName: command.agentName }),
        metadata: command.metadata,
        depth: 0,
        namespace: command.namespace,
        externalId: command.externalId,
      },
    },
  ];
}
