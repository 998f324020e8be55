// Which conversation each Hermes session belongs to, and the key the ledger gives that conversation.
import { sessionKeyFor, type SessionKeyOptions } from '../sessions/domain/sessionKey.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import type { HermesEntry } from './hermesSessionsJson.js';
import type { HermesSessionRow } from './hermesStateDb.js';

/** End reasons after which Hermes' child row continues its parent's conversation (a reset, a compression). */
const CONTINUING_END_REASONS = new Set([
  'session_reset',
  'session_switch',
  'compression',
  'suspended',
  'resume_pending_expired',
  'idle',
  'daily',
  'new_session',
]);

/**
 * The Hermes session key of each state.db session: the sessions.json entry pointing at it, else its own
 * `session_key` column (newer schemas), else that of the session it continues or that continues it (older
 * schemas keep reset and compression chains only through parent_session_id and the parent's end reason).
 * Sessions of no conversation are absent from the map.
 */
export function hermesKeysOfSessions(rows: readonly HermesSessionRow[], entries: Readonly<Record<string, HermesEntry>>): Map<string, string> {
  const keys = new Map<string, string>();
  for (const row of rows) if (row.sessionKey) keys.set(row.id, row.sessionKey);
  for (const [key, entry] of Object.entries(entries)) keys.set(entry.session_id, entry.session_key || key);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const continues = (child: HermesSessionRow) => {
    const parent = child.parentSessionId ? byId.get(child.parentSessionId) : undefined;
    return parent && CONTINUING_END_REASONS.has(parent.endReason ?? '') ? parent : undefined;
  };
  // Along the chains in both directions until nothing changes: each round settles at least one more link.
  for (let changed = true; changed;) {
    changed = false;
    for (const row of rows) {
      const parent = continues(row);
      if (!parent) continue;
      const [childKey, parentKey] = [keys.get(row.id), keys.get(parent.id)];
      if (childKey === undefined && parentKey !== undefined) keys.set(row.id, parentKey);
      else if (parentKey === undefined && childKey !== undefined) keys.set(parent.id, childKey);
      else continue;
      changed = true;
    }
  }
  return keys;
}

/**
 * The key the ledger's resolve computes for the conversation's origin: the one the next live message will look
 * up. Ordinary ids give Hermes' key byte for byte; ids with ':' or '%', or other isolation settings, do not, and
 * the conversation is imported under the ledger's key (reported as rekeyed). Without a real origin, Hermes' key stays.
 */
export function ledgerKeyFor(hermesKey: string, origin: SessionSource | null, hasRealOrigin: boolean, options: SessionKeyOptions): string {
  if (!origin || !hasRealOrigin || (origin.chatId === undefined && origin.userId === undefined)) return hermesKey;
  return sessionKeyFor(origin, options);
}
