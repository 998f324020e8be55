// Full-text search's shapes as the typed client sends and receives them (GET /v1/search).

export interface SearchQuery {
  /** Words, "quoted phrases", -excluded words, OR (at most 500 characters). */
  q: string;
  sessionKey?: string;
  sessionId?: string;
  platform?: string;
  /** A message's role (`system`, `user`, `assistant`, `tool`) or an item's (its `role`, content role or `type`). */
  role?: string;
  /** `transcript`: only transcript messages; `items`: only items of item histories. Both when absent. */
  source?: 'transcript' | 'items';
  /** ISO 8601: messages at or after. */
  since?: string;
  /** ISO 8601: messages before. */
  until?: string;
  /** Hits (or sessions with groupBy) per page, 1-100, default 20. */
  limit?: number;
  cursor?: string;
  /** `session`: the best sessions, each with its best hits, instead of hits one by one. */
  groupBy?: 'session';
  /** With groupBy: best hits per session, 1-10, default 3. */
  hitsPerSession?: number;
  /** Also messages rewound or rewritten away, and messages of destroyed sessions. */
  includeDeleted?: boolean;
  /** Also messages of timelines a rollback left. */
  includeRolledBack?: boolean;
}

/** A piece of a snippet: the matched terms are the parts with match true. */
export interface SnippetPart {
  text: string;
  match: boolean;
}

export interface SearchHit {
  sessionId: string;
  sessionKey: string;
  platform: string;
  /** null for an item of the session's item history. */
  turnIndex: number | null;
  /** The message's place in its slot's transcript, or the item's place in the item history. */
  messageIndex: number;
  /** null for an item. */
  slot: string | null;
  /** The item's id when the hit is an item of an item history; null for a transcript message. */
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

export interface SearchHitsPage {
  query: string;
  /** Best rank first. */
  hits: SearchHit[];
  nextCursor: string | null;
}

export interface SessionSearchHits {
  sessionId: string;
  sessionKey: string;
  platform: string;
  rank: number;
  hitCount: number;
  lastAt: string;
  hits: SearchHit[];
}

export interface SearchSessionsPage {
  query: string;
  sessions: SessionSearchHits[];
  nextCursor: string | null;
}
