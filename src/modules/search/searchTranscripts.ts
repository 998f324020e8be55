// A validated search, answered from the read model: what GET /v1/search and `session-ledger search` both answer.
import type { DataSource } from 'typeorm';
import { ValidationError } from '../../errors/ledgerError.js';
import { decodeSearchCursor, encodeSearchCursor, MAX_SEARCH_OFFSET } from './searchCursor.js';
import { toSearchHitView, toSessionHitsView } from './searchHitView.js';
import { type SearchFilters, searchMessages, searchSessions } from './searchQueries.js';
import { parseSearch } from './searchQuery.js';
import type { SearchRequest } from './searchRequests.js';

export async function searchTranscripts(readModels: DataSource, tenant: string | undefined, query: SearchRequest) {
  const parsed = parseSearch(query.q);
  const since = query.since === undefined ? undefined : new Date(query.since);
  const until = query.until === undefined ? undefined : new Date(query.until);
  if (since && until && since > until) throw new ValidationError('since is after until', { since: query.since, until: query.until });
  const offset = query.cursor === undefined ? 0 : decodeSearchCursor(query.cursor);
  const filters: SearchFilters = {
    tenant,
    websearch: parsed.websearch,
    sessionKey: query.sessionKey,
    sessionId: query.sessionId,
    platform: query.platform,
    role: query.role,
    source: query.source,
    since,
    until,
    includeDeleted: query.includeDeleted,
    includeRolledBack: query.includeRolledBack,
  };
  // One more than asked says whether another page exists.
  const page = { limit: query.limit + 1, offset };
  const nextCursor = (found: number) => (found > query.limit && offset + query.limit <= MAX_SEARCH_OFFSET ? encodeSearchCursor(offset + query.limit) : null);
  if (query.groupBy === 'session') {
    const sessions = await searchSessions(readModels, filters, { ...page, hitsPerSession: query.hitsPerSession });
    return {
      query: query.q,
      sessions: sessions.slice(0, query.limit).map((session) => toSessionHitsView(session, parsed.markedTerms)),
      nextCursor: nextCursor(sessions.length),
    };
  }
  const hits = await searchMessages(readModels, filters, page);
  return { query: query.q, hits: hits.slice(0, query.limit).map((hit) => toSearchHitView(hit, parsed.markedTerms)), nextCursor: nextCursor(hits.length) };
}
