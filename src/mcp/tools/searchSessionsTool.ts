// search_sessions: full-text search over every past session's transcript and item history (GET /v1/search).
import { z } from 'zod';
import type { SearchHit } from '../../client/index.js';
import { clipped, fitList } from '../boundedAnswer.js';
import { ledgerTool, sessionIdArgument, timeArgument } from '../ledgerTool.js';

const MAX_CHARS = 16_000;
const MAX_SNIPPET_CHARS = 600;

const input = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe(
      'Words to find. "quoted phrase" for an exact phrase, -word to exclude a word, OR between alternatives. Chinese and other unsegmented text works.',
    ),
  platform: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'a platform name such as telegram, slack or agent')
    .optional()
    .describe('Only sessions of this platform (telegram, slack, discord, agent for agent-framework sessions, …).'),
  sessionId: sessionIdArgument.optional().describe('Only this session.'),
  role: z.string().min(1).max(64).optional().describe('Only messages of this role: user, assistant, system or tool (for items: their role or type).'),
  source: z.enum(['transcript', 'items']).optional().describe('transcript: only transcript messages; items: only item-history items. Both when left out.'),
  since: timeArgument('Only messages at or after this time (ISO 8601, e.g. 2026-12-01T00:00:00Z).').optional(),
  until: timeArgument('Only messages before this time (ISO 8601).').optional(),
  bySession: z.boolean().optional().describe('true: answer the best matching sessions, each with its best 3 hits, instead of hits one by one.'),
  limit: z.number().int().min(1).max(50).default(10).describe('Hits (or sessions with bySession) per page, 1-50. Default 10.'),
  cursor: z.string().min(1).max(200).optional().describe('The nextCursor of the previous answer, for the next page.'),
});

const hitView = (hit: SearchHit) => ({
  sessionId: hit.sessionId,
  sessionKey: hit.sessionKey,
  platform: hit.platform,
  ...(hit.itemId !== null ? { itemId: hit.itemId, itemIndex: hit.messageIndex } : { turnIndex: hit.turnIndex, messageIndex: hit.messageIndex }),
  role: hit.role,
  at: hit.at,
  snippet: clipped(hit.snippet, MAX_SNIPPET_CHARS),
  ...(hit.deleted ? { deleted: true } : {}),
  ...(hit.rolledBack ? { rolledBack: true } : {}),
});

export const searchSessionsTool = ledgerTool({
  name: 'search_sessions',
  title: 'Search past sessions',
  description:
    'Full-text search over every past conversation this token can see: transcripts of chat sessions and item histories of agent sessions. ' +
    'Use it to recall what was said or decided before ("what did we decide about the invoice format?"), or to find the session a topic was discussed in. ' +
    'Answers hits best first, each with its sessionId, where it is (turnIndex and messageIndex for a transcript message, itemId for an item), role, time and a snippet with the matched words between >>> and <<<. ' +
    'Read the surrounding conversation with read_history (sessionId; for an item, before the next item). ' +
    `Answers are at most ${MAX_CHARS.toLocaleString('en')} characters of JSON; "truncated": true says hits were left out for size (ask again with a smaller limit); nextCursor fetches the next page.`,
  scope: 'read',
  maxChars: MAX_CHARS,
  input,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(client, args) {
    const query = {
      q: args.query,
      platform: args.platform,
      sessionId: args.sessionId,
      role: args.role,
      source: args.source,
      since: args.since,
      until: args.until,
      limit: args.limit,
      cursor: args.cursor,
    };
    if (args.bySession) {
      const page = await client.search({ ...query, groupBy: 'session', hitsPerSession: 3 });
      const sessions = page.sessions.map((session) => ({
        sessionId: session.sessionId,
        sessionKey: session.sessionKey,
        platform: session.platform,
        hitCount: session.hitCount,
        lastAt: session.lastAt,
        hits: session.hits.map(hitView),
      }));
      const answer = (kept: typeof sessions) => ({ query: page.query, sessions: kept, nextCursor: page.nextCursor, truncated: kept.length < sessions.length });
      return answer(fitList(sessions, MAX_CHARS, answer, 'first').kept);
    }
    const page = await client.search(query);
    const hits = page.hits.map(hitView);
    const answer = (kept: typeof hits) => ({ query: page.query, hits: kept, nextCursor: page.nextCursor, truncated: kept.length < hits.length });
    return answer(fitList(hits, MAX_CHARS, answer, 'first').kept);
  },
});
