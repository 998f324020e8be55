// PATCH of a key-value state: a shared one by its namespace and id, or a session's own values (while the session is
// writable), shared states changed with them in the same append.
import type { EventMetadata, JsonObject } from '../../../events/eventStore.js';
import { sessionStateStreamName, sharedStateStreamName } from '../../../events/agentState/agentStateEvents.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import type { LoadedState } from '../../../events/streamStateStore.js';
import { requireWritable, sessionDecider, sessionNotFound } from '../../sessions/domain/sessionDecider.js';
import type { ExistingSession } from '../../sessions/domain/sessionState.js';
import { type AgentState, agentStateDecider } from '../domain/agentStateDecider.js';
import { decideUntilWritten, type ItemWriteContext } from './itemWriteContext.js';
import { appendParts, decideStateParts, type StateDeltas } from './stateChanges.js';

export interface ChangedState extends LoadedState<AgentState> {
  /** Whether this request changed it (an empty delta, or a retry of a write stored already, does not). */
  written: boolean;
}

export function changeSharedState(
  context: ItemWriteContext,
  name: { namespace: string; stateId: string },
  delta: JsonObject,
  tenant: string | undefined,
  metadata: EventMetadata,
): Promise<ChangedState> {
  const streamName = sharedStateStreamName(name.namespace, name.stateId, tenant);
  return decideUntilWritten(async () => {
    const parts = await decideStateParts(context, tenant, undefined, { shared: [{ ...name, delta }] }, undefined);
    if (parts.length > 0 && !(await appendParts(context, parts, metadata))) return undefined;
    return { ...(await context.streams.load(streamName, agentStateDecider)), written: parts.length > 0 };
  });
}

export interface ChangedSessionState {
  session: LoadedState<ExistingSession>;
  state: ChangedState;
}

/** The session's stream is a condition of the append: a session destroyed or ended meanwhile refuses it, and so does If-Match. */
export function changeSessionState(
  context: ItemWriteContext,
  sessionId: string,
  deltas: StateDeltas,
  tenant: string | undefined,
  metadata: EventMetadata,
): Promise<ChangedSessionState> {
  const streamName = sessionStreamName(sessionId, tenant);
  return decideUntilWritten(async () => {
    const loaded = await context.streams.load(streamName, sessionDecider);
    const { state } = loaded;
    if (state.status === 'absent') throw sessionNotFound(sessionId);
    requireWritable(state);
    const parts = await decideStateParts(context, tenant, state, deltas, undefined);
    if (parts.length > 0 && !(await appendParts(context, [{ streamName, revision: loaded.revision, events: [] }, ...parts], metadata))) return undefined;
    const changed = await context.streams.load(sessionStateStreamName(sessionId, tenant), agentStateDecider);
    return { session: { ...loaded, state }, state: { ...changed, written: parts.length > 0 } };
  });
}
