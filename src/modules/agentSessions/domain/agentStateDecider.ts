// A key-value state changed by deltas (ADK's session, `app:` and `user:` state): its fold and its one command.
import type { AgentStateEvent } from '../../../events/agentState/agentStateEvents.js';
import type { Decider } from '../../../events/decider.js';
import type { JsonObject } from '../../../events/eventStore.js';

export interface AgentState {
  values: JsonObject;
  /** When the last change was made; null for a state never written. */
  updatedAt: string | null;
}

/** Where the state belongs, recorded with each change: a shared state by its name, a session's by the session. */
export type AgentStateOwner = { ownerKey: string } & ({ namespace: string; stateId: string } | { sessionId: string });

export interface ChangeAgentState {
  type: 'ChangeAgentState';
  owner: AgentStateOwner;
  delta: JsonObject;
  now: string;
}

/** Sets each key as a data property: a key named `__proto__` is a key like any other. */
function merged(values: JsonObject, delta: JsonObject): JsonObject {
  const next: JsonObject = { ...values };
  for (const [key, value] of Object.entries(delta)) Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  return next;
}

export function decideChangeAgentState(command: ChangeAgentState, _state: AgentState): AgentStateEvent[] {
  // An empty delta changes nothing, and writes nothing.
  if (Object.keys(command.delta).length === 0) return [];
  return [{ type: 'AgentStateChanged', data: { ...command.owner, delta: command.delta, at: command.now } }];
}

export const agentStateDecider: Decider<AgentState, ChangeAgentState, AgentStateEvent> & { snapshotVersion: string } = {
  initialState: () => ({ values: {}, updatedAt: null }),
  // The stream's one event type; one of a newer version of the service (a rolling upgrade) leaves the state as it was.
  evolve: (state, event) => (event.type === 'AgentStateChanged' ? { values: merged(state.values, event.data.delta), updatedAt: event.data.at } : state),
  decide: decideChangeAgentState,
  snapshotVersion: 'agent-state/1',
};
