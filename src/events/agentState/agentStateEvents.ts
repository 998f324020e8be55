// Events of an `agent-state-<id>` stream: a key-value state an agent framework keeps beside its sessions (ADK's
// session, `app:` and `user:` state), changed by deltas.
import { createHash } from 'node:crypto';
import type { JsonObject } from '../eventStore.js';
import { scopedStreamName } from '../streamScope.js';

/**
 * One change of a state: each key of `delta` takes its value (null is a value, not a removal). `ownerKey` is the key
 * an erasure takes to erase this state: the session's key for a session's own state, `agent-state:<namespace>:<state
 * id>` for a shared one. A shared state names itself (`namespace`, `stateId`); a session's names its session.
 */
export type AgentStateEvent = {
  type: 'AgentStateChanged';
  data: {
    ownerKey: string;
    namespace?: string;
    stateId?: string;
    sessionId?: string;
    delta: JsonObject;
    at: string;
  };
};

export type AgentStateEventType = AgentStateEvent['type'];

const PREFIX = 'agent-state-';

/**
 * A shared state's stream: named by a digest of its namespace and id, so the stream's name holds nothing a person
 * could be recognised by (the id may name a user), and nothing needs renaming when it is erased.
 */
export function sharedStateStreamName(namespace: string, stateId: string, tenant: string | undefined): string {
  const hex = createHash('sha256')
    .update(JSON.stringify(['agent-state', namespace, stateId]))
    .digest('hex');
  return scopedStreamName(`${PREFIX}st_${hex.slice(0, 32)}`, tenant);
}

/** A session's own state: beside the session's stream, named by the session's id (which the service made). */
export function sessionStateStreamName(sessionId: string, tenant: string | undefined): string {
  return scopedStreamName(`${PREFIX}${sessionId}`, tenant);
}

/** Every state stream of a tenant starts with this. */
export function agentStateStreamPrefix(tenant: string | undefined): string {
  return scopedStreamName(PREFIX, tenant);
}

const SHARED_KEY_PREFIX = 'agent-state:';

/** The key a shared state is erased by: `POST /v1/admin/erase {"sessionKey": "agent-state:<namespace>:<state id>"}`. */
export function sharedStateKey(namespace: string, stateId: string): string {
  return `${SHARED_KEY_PREFIX}${namespace}:${stateId}`;
}

/** The namespace and state id a shared state's key names, or null for any other key. */
export function sharedStateOfKey(key: string): { namespace: string; stateId: string } | null {
  if (!key.startsWith(SHARED_KEY_PREFIX)) return null;
  const rest = key.slice(SHARED_KEY_PREFIX.length);
  const colon = rest.indexOf(':');
  return colon <= 0 ? null : { namespace: rest.slice(0, colon), stateId: rest.slice(colon + 1) };
}
