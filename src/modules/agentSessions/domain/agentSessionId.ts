// Sessions named by a client's own id inside a namespace: their session ids, keys and origin, all derived from that id.
import { createHash } from 'node:crypto';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

/** The origin platform of a session created by its external id: no gateway, no chat. */
export const AGENT_PLATFORM = 'agent';

/**
 * The session id of the n-th session created under an external id (n counts the deleted ones before it): derived,
 * so that every instance creating the same id appends to the same new stream, and the store's "no stream yet"
 * check picks one creator. A deleted session's id is never reused: its history stays for audit.
 */
export function agentSessionId(namespace: string, externalId: string, incarnation: number): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([namespace, externalId, incarnation]))
    .digest('hex');
  return `ag_${hex.slice(0, 32)}`;
}

/** What the session's key says: found by an erasure of this key, and never a gateway's key (those start with `agent:`). */
export function agentSessionKey(namespace: string, externalId: string): string {
  return `${KEY_PREFIX}${namespace}:${externalId}`;
}

const KEY_PREFIX = 'agent-session:';

/** The namespace and external id an agent session's key names, or null for any other key. */
export function agentSessionOfKey(sessionKey: string): { namespace: string; externalId: string } | null {
  if (!sessionKey.startsWith(KEY_PREFIX)) return null;
  const rest = sessionKey.slice(KEY_PREFIX.length);
  const colon = rest.indexOf(':');
  return colon <= 0 ? null : { namespace: rest.slice(0, colon), externalId: rest.slice(colon + 1) };
}

export function agentSessionOrigin(externalId: string): SessionSource {
  return { platform: AGENT_PLATFORM, chatType: 'dm', chatId: externalId, isBot: false, roleAuthorized: false };
}
