// A search hit and a session of hits as the API answers them.
import type { MessageHitRow, SessionHitsRow } from './searchQueries.js';
import { type SnippetPart, snippetOf } from './searchSnippet.js';

export interface SearchHitView {
  sessionId: string;
  sessionKey: string;
  platform: string;
  /** null for an item of the session's item history. */
  turnIndex: number | null;
  /** The message's place in its slot's transcript, or the item's place in the item history. */
  messageIndex: number;
  /** null for an item. */
  slot: string | null;
  /** The item's id when the hit is an item of the session's item history; null for a transcript message. */
  itemId: string | null;
  role: string;
  at: string;
  snippet: string;
  snippetParts: SnippetPart[];
  rank: number;
  /** Rewound or rewritten away (found only with includeDeleted). */
  deleted: boolean;
  /** On a timeline a rollback left (found only with includeRolledBack). */
  rolledBack: boolean;
  /** Its session was destroyed (found only with includeDeleted). */
  sessionDestroyed: boolean;
}

export function toSearchHitView(row: MessageHitRow, markedTerms: readonly string[]): SearchHitView {
  const snippet = snippetOf(row.body, markedTerms);
  return {
    sessionId: row.sessionId,
    sessionKey: row.sessionKey,
    platform: row.platform,
    turnIndex: row.turnIndex,
    messageIndex: row.messageIndex,
    slot: row.slot,
    itemId: row.itemId,
    role: row.role,
    at: row.at.toISOString(),
    snippet: snippet.text,
    snippetParts: snippet.parts,
    rank: row.rank,
    deleted: row.deleted,
    rolledBack: row.rolledBack,
    sessionDestroyed: row.sessionDestroyed,
  };
}

export function toSessionHitsView(row: SessionHitsRow, markedTerms: readonly string[]) {
  return {
    sessionId: row.sessionId,
    sessionKey: row.sessionKey,
    platform: row.platform,
    rank: row.rank,
    hitCount: row.hitCount,
    lastAt: row.lastAt.toISOString(),
    hits: row.hits.map((hit) => toSearchHitView(hit, markedTerms)),
  };
}
