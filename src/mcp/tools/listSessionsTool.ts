// list_sessions: the most recent sessions, of chat conversations (GET /v1/sessions) or of one agent namespace.
import { z } from 'zod';
import { fitList } from '../boundedAnswer.js';
import { ledgerTool, timeArgument } from '../ledgerTool.js';

const MAX_CHARS = 12_000;

const input = z.strictObject({
  namespace: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a namespace is 1-64 of A-Z a-z 0-9 _ . -')
    .optional()
    .describe("An agent framework's namespace (e.g. \"support\"): list that namespace's agent sessions. Left out: chat conversations' current sessions."),
  platform: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'a platform name such as telegram or slack')
    .optional()
    .describe('Chat conversations only: only this platform (telegram, slack, discord, …).'),
  activeMinutes: z
    .number()
    .int()
    .min(1)
    .max(60 * 24 * 366)
    .optional()
    .describe('Chat conversations only: only those active within this many minutes.'),
  updatedAfter: timeArgument('Agent namespaces only: only sessions changed at or after this time (ISO 8601).').optional(),
  limit: z.number().int().min(1).max(100).default(20).describe('Sessions per page, 1-100. Default 20.'),
  cursor: z.string().min(1).max(500).optional().describe('The nextCursor of the previous answer, for the next page.'),
});

export const listSessionsTool = ledgerTool({
  name: 'list_sessions',
  title: 'List sessions',
  description:
    'Lists sessions, most recently active first. Without namespace: chat conversations (one line per conversation: its session key, current sessionId, platform, display name, turn count, tokens, last activity). ' +
    'With namespace: the sessions an agent framework keeps under that namespace (sessionId, externalId, agentName, status, itemCount, updatedAt). ' +
    'Use it to find a session to read (read_history) or inspect (show_session) when you do not have words to search for. ' +
    `The answer is at most ${MAX_CHARS.toLocaleString('en')} characters of JSON; "truncated": true says sessions were left out for size (ask again with a smaller limit); nextCursor fetches the next page.`,
  scope: 'read',
  maxChars: MAX_CHARS,
  input,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(client, args) {
    if (args.namespace !== undefined) {
      if (args.platform !== undefined || args.activeMinutes !== undefined)
        throw new Error('platform and activeMinutes filter chat conversations: leave them out with namespace');
      const page = await client.listAgentSessions(args.namespace, { limit: args.limit, cursor: args.cursor, updatedAfter: args.updatedAfter });
      const sessions = page.sessions.map(({ sessionId, externalId, agentName, status, itemCount, createdAt, updatedAt }) => ({
        sessionId,
        externalId,
        agentName,
        status,
        itemCount,
        createdAt,
        updatedAt,
      }));
      const answer = (kept: typeof sessions) => ({
        namespace: args.namespace,
        sessions: kept,
        nextCursor: page.nextCursor,
        truncated: kept.length < sessions.length,
      });
      return answer(fitList(sessions, MAX_CHARS, answer, 'first').kept);
    }
    if (args.updatedAfter !== undefined) throw new Error('updatedAfter filters an agent namespace: give namespace too, or use activeMinutes');
    const page = await client.listSessions({ platform: args.platform, activeMinutes: args.activeMinutes, limit: args.limit, cursor: args.cursor });
    const sessions = page.sessions.map((entry) => ({
      sessionKey: entry.sessionKey,
      sessionId: entry.sessionId,
      platform: entry.platform,
      chatType: entry.chatType,
      displayName: entry.displayName,
      turnCount: entry.turnCount,
      totalTokens: entry.totalTokens,
      updatedAt: entry.updatedAt,
      suspended: entry.suspended,
    }));
    const answer = (kept: typeof sessions) => ({ sessions: kept, nextCursor: page.nextCursor, truncated: kept.length < sessions.length });
    return answer(fitList(sessions, MAX_CHARS, answer, 'first').kept);
  },
});
