// PUT /v1/namespaces/{namespace}/sessions/{externalId}: the session of that id, created by the first request that asks.
import type { EventMetadata, JsonObject } from '../../../events/eventStore.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import type { LoadedState } from '../../../events/streamStateStore.js';
import { ConflictError } from '../../../errors/ledgerError.js';
import { existingSession, sessionDecider } from '../../sessions/domain/sessionDecider.js';
import type { ExistingSession } from '../../sessions/domain/sessionState.js';
import { agentSessionId } from '../domain/agentSessionId.js';
import { decideCreateAgentSession } from '../domain/decideCreateAgentSession.js';
import { type ItemWriteContext, sessionDecision } from './itemWriteContext.js';

export interface AgentSessionName {
  namespace: string;
  externalId: string;
}

export interface CreatedAgentSession extends LoadedState<ExistingSession> {
  /** Whether this request (or an earlier attempt of it) created it. */
  created: boolean;
}

/** Deleted sessions an external id may have had before its current one. */
const MAX_INCARNATIONS = 10_000;

/**
 * The first session of the id that is not deleted, created when there is none. Two instances creating the same id
 * append to the same new stream, expecting none: one append wins, and the other decides again and finds it.
 */
export async function createAgentSession(
  context: ItemWriteContext,
  name: AgentSessionName,
  details: { agentName: string | null; metadata: JsonObject },
  tenant: string | undefined,
  metadata: EventMetadata,
): Promise<CreatedAgentSession> {
  const create = sessionDecision(decideCreateAgentSession);
  for (let incarnation = 0; incarnation < MAX_INCARNATIONS; incarnation++) {
    const sessionId = agentSessionId(name.namespace, name.externalId, incarnation);
    const command = { type: 'CreateAgentSession' as const, sessionId, ...name, ...details, now: context.now() };
    const result = await context.streams.handle(sessionStreamName(sessionId, tenant), create, command, metadata);
    const state = existingSession(result.state, sessionId);
    if (state.status === 'destroyed') continue;
    return { state, revision: result.revision, position: result.position, source: result.source, created: result.written || result.earlier === true };
  }
  throw tooManyIncarnations(name);
}

/** The current (not deleted) session of the id, or undefined. */
export async function findAgentSession(
  context: ItemWriteContext,
  name: AgentSessionName,
  tenant: string | undefined,
): Promise<LoadedState<ExistingSession> | undefined> {
  for (let incarnation = 0; incarnation < MAX_INCARNATIONS; incarnation++) {
    const loaded = await context.streams.load(sessionStreamName(agentSessionId(name.namespace, name.externalId, incarnation), tenant), sessionDecider);
    const { state } = loaded;
    if (state.status === 'absent') return undefined;
    if (state.status !== 'destroyed') return { ...loaded, state };
  }
  throw tooManyIncarnations(name);
}

function tooManyIncarnations(name: AgentSessionName): ConflictError {
  return new ConflictError('TOO_MANY_DELETED_SESSIONS', `external id ${name.externalId} has had ${MAX_INCARNATIONS} sessions deleted`, { ...name });
}
