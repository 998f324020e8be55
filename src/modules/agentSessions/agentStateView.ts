// What the key-value state routes answer.
import type { LoadedState } from '../../events/streamStateStore.js';
import type { AgentState } from './domain/agentStateDecider.js';

export function sharedStateView(name: { namespace: string; stateId: string }, loaded: LoadedState<AgentState>) {
  return {
    namespace: name.namespace,
    stateId: name.stateId,
    state: loaded.state.values,
    updatedAt: loaded.state.updatedAt,
    revision: loaded.revision,
    position: loaded.position,
  };
}

/** `revision` is the session's (its ETag, what If-Match names); `stateRevision` the state stream's own. */
export function sessionStateView(sessionId: string, session: { revision: number; position: number }, loaded: LoadedState<AgentState>) {
  return {
    sessionId,
    state: loaded.state.values,
    updatedAt: loaded.state.updatedAt,
    revision: session.revision,
    stateRevision: loaded.revision,
    position: Math.max(session.position, loaded.position),
  };
}
