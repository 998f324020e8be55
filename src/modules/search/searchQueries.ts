// Reads of the transcript search read model: hits by rank, or the best sessions with their best hits.
import type { DataSource } from 'typeorm';
import { SearchMessageEntity, qualifiedTable } from '../../projections/transcriptSearch/searchRows.js';

export interface SearchFilters {
  /** undefined: the default tenant. */
  tenant: string | undefined;
  /** The query for websearch_to_tsquery (see parseSearch). */
  websearch: string;
  sessionKey?: string | undefined;
  sessionId?: string | undefined;
  platform?: string | undefined;
  role?: string | undefined;
  /** Only transcript messages, or only items of item histories; undefined: both. */
  source?: 'transcript' | 'items' | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  includeDeleted: boolean;
  includeRolledBack: boolean;
}

export interface MessageHitRow {
  sessionId: string;
  sessionKey: string;
  platform: string;
  messageIndex: number;
  turnIndex: number | null;
  slot: string | null;
  /** Set for an item of the session's item history; null for a transcript message. */
  itemId: string | null;
  role: string;
  at: Date;
  deleted: boolean;
  rolledBack: boolean;
  sessionDestroyed: boolean;
  body: string;
  rank: number;
}

export interface SessionHitsRow {
  sessionId: string;
  sessionKey: string;
  platform: string;
  rank: number;
  hitCount: number;
  lastAt: Date;
  hits: MessageHitRow[];
}

const HIT_COLUMNS = `m.session_id, m.session_key, m.platform, m.message_index, m.turn_index, m.slot, m.item_id, m.role, m.at, m.deleted,
  m.ordinal IS NULL AS rolled_back, m.session_destroyed, m.body`;
const QUERY = `websearch_to_tsquery('simple', $1)`;
// Normalisation 1: divided by 1 + the log of the message's length, so a short message that says it outranks a long tool output that mentions it.
const RANK = `ts_rank(m.terms, ${QUERY}, 1)`;

/** The WHERE clause over `m` and its parameters after $1 (the query). */
function conditionsOf(filters: SearchFilters): { where: string; params: unknown[] } {
  const params: unknown[] = [filters.websearch, filters.tenant ?? ''];
  const conditions = ['m.tenant = $2', `m.terms @@ ${QUERY}`];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (!filters.includeDeleted) conditions.push('NOT m.deleted AND NOT m.session_destroyed');
  if (!filters.includeRolledBack) conditions.push('m.ordinal IS NOT NULL');
  if (filters.sessionKey !== undefined) add((p) => `m.session_key = ${p}`, filters.sessionKey);
  if (filters.sessionId !== undefined) add((p) => `m.session_id = ${p}`, filters.sessionId);
  if (filters.platform !== undefined) add((p) => `m.platform = ${p}`, filters.platform);
  if (filters.role !== undefined) add((p) => `m.role = ${p}`, filters.role);
  if (filters.source !== undefined) conditions.push(filters.source === 'items' ? 'm.item_id IS NOT NULL' : 'm.item_id IS NULL');
  if (filters.since !== undefined) add((p) => `m.at >= ${p}`, filters.since);
  if (filters.until !== undefined) add((p) => `m.at < ${p}`, filters.until);
  return { where: conditions.join(' AND '), params };
}

/** Best rank first; ties newest first, then in transcript order, so every hit has one place. */
export async function searchMessages(readModels: DataSource, filters: SearchFilters, page: { limit: number; offset: number }): Promise<MessageHitRow[]> {
  const table = qualifiedTable(readModels.manager, SearchMessageEntity);
  const { where, params } = conditionsOf(filters);
  const rows: RawHit[] = await readModels.query(
    `SELECT ${HIT_COLUMNS}, ${RANK} AS rank FROM ${table} m WHERE ${where}
     ORDER BY rank DESC, m.at DESC, m.session_id, m.seq LIMIT ${page.limit} OFFSET ${page.offset}`,
    params,
  );
  return rows.map(hitOf);
}

/** Sessions by their best hit's rank, each with its `hitsPerSession` best hits. */
export async function searchSessions(
  readModels: DataSource,
  filters: SearchFilters,
  page: { limit: number; offset: number; hitsPerSession: number },
): Promise<SessionHitsRow[]> {
  const table = qualifiedTable(readModels.manager, SearchMessageEntity);
  const { where, params } = conditionsOf(filters);
  const rows: Array<RawHit & { best: number; hit_count: string | number; last_at: Date | string }> = await readModels.query(
    `WITH hits AS (
       SELECT m.session_id, m.seq, m.at, ${RANK} AS rank FROM ${table} m WHERE ${where}
     ), page AS (
       SELECT session_id, max(rank) AS best, count(*) AS hit_count, max(at) AS last_at FROM hits
       GROUP BY session_id ORDER BY best DESC, last_at DESC, session_id LIMIT ${page.limit} OFFSET ${page.offset}
     ), best AS (
       SELECT hits.*, row_number() OVER (PARTITION BY hits.session_id ORDER BY hits.rank DESC, hits.at DESC, hits.seq) AS n
       FROM hits JOIN page USING (session_id)
     )
     SELECT ${HIT_COLUMNS}, best.rank, page.best, page.hit_count, page.last_at
     FROM best JOIN page USING (session_id) JOIN ${table} m ON m.tenant = $2 AND m.session_id = best.session_id AND m.seq = best.seq
     WHERE best.n <= ${page.hitsPerSession}
     ORDER BY page.best DESC, page.last_at DESC, page.session_id, best.n`,
    params,
  );
  const sessions: SessionHitsRow[] = [];
  for (const row of rows) {
    let session = sessions.at(-1);
    if (session?.sessionId !== row.session_id) {
      session = {
        sessionId: row.session_id,
        sessionKey: row.session_key,
        platform: row.platform,
        rank: Number(row.best),
        hitCount: Number(row.hit_count),
        lastAt: new Date(row.last_at),
        hits: [],
      };
      sessions.push(session);
    }
    session.hits.push(hitOf(row));
  }
  return sessions;
}

interface RawHit {
  session_id: string;
  session_key: string;
  platform: string;
  message_index: number;
  turn_index: number | null;
  slot: string | null;
  item_id: string | null;
  role: string;
  at: Date | string;
  deleted: boolean;
  rolled_back: boolean;
  session_destroyed: boolean;
  body: string;
  rank: number | string;
}

function hitOf(row: RawHit): MessageHitRow {
  return {
    sessionId: row.session_id,
    sessionKey: row.session_key,
    platform: row.platform,
    messageIndex: Number(row.message_index),
    turnIndex: row.turn_index === null ? null : Number(row.turn_index),
    slot: row.slot,
    itemId: row.item_id,
    role: row.role,
    at: new Date(row.at),
    deleted: row.deleted,
    rolledBack: row.rolled_back,
    sessionDestroyed: row.session_destroyed,
    body: row.body,
    rank: Number(row.rank),
  };
}
