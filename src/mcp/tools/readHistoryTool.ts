// read_history: a session's newest messages (transcript) or items (item history), and older ones page by page.
import { z } from 'zod';
import type { LedgerClient, TranscriptMessage } from '../../client/index.js';
import { clipped, fitList } from '../boundedAnswer.js';
import { ledgerTool, sessionIdArgument } from '../ledgerTool.js';

const MAX_CHARS = 24_000;

const input = z.strictObject({
  sessionId: sessionIdArgument,
  source: z
    .enum(['transcript', 'items'])
    .optional()
    .describe(
      'transcript: the chat messages of turns; items: the item history an agent framework keeps (OpenAI Agents, Claude Agent SDK). Left out: the transcript when the session has messages, else its items.',
    ),
  limit: z.number().int().min(1).max(100).default(20).describe('How many of the newest entries (before `before`, when given), 1-100. Default 20.'),
  before: z.string().min(1).max(512).optional().describe('The nextBefore of the previous answer: entries older than that one.'),
});

type Args = z.output<typeof input>;

const messageView = (message: TranscriptMessage) => ({
  index: message.index,
  turnIndex: message.turnIndex,
  role: message.role,
  at: message.at,
  content: clipped(message.content),
  ...(message.name !== undefined ? { name: message.name } : {}),
  ...(message.toolCallId !== undefined ? { toolCallId: message.toolCallId } : {}),
  ...(message.toolCalls !== undefined ? { toolCalls: clipped(message.toolCalls) } : {}),
});

/** The page answered, newest entries kept when the cap cuts it; nextBefore continues from the oldest one kept. */
function page<T>(header: object, entries: T[], olderExist: boolean, cursorOf: (entry: T) => string) {
  const answer = (kept: T[]) => ({
    ...header,
    entries: kept,
    hasOlder: olderExist || kept.length < entries.length,
    nextBefore: olderExist || kept.length < entries.length ? cursorOf(kept[0]!) : null,
    truncated: kept.length < entries.length,
  });
  return answer(fitList(entries, MAX_CHARS, answer, 'last').kept);
}

async function transcriptPage(client: LedgerClient, args: Args, status: string) {
  const before = args.before === undefined ? undefined : Number(args.before);
  if (before !== undefined && !Number.isSafeInteger(before))
    throw new Error(`before: a transcript's nextBefore is a message index such as "12", not "${args.before}"`);
  const { messages } = await client.getTranscript(args.sessionId);
  const older = before === undefined ? messages : messages.filter((message) => message.index < before);
  const entries = older.slice(-args.limit).map(messageView);
  return page({ sessionId: args.sessionId, source: 'transcript', status, total: messages.length }, entries, older.length > entries.length, (entry) =>
    String(entry.index),
  );
}

async function itemsPage(client: LedgerClient, args: Args) {
  const items = await client.listItems(args.sessionId, { limit: args.limit, before: args.before });
  const entries = items.items.map((item) => ({ id: item.id, index: item.index, at: item.at, item: clipped(item.item) }));
  return page({ sessionId: args.sessionId, source: 'items', status: items.status, total: items.itemCount }, entries, items.hasMore, (entry) => entry.id);
}

export const readHistoryTool = ledgerTool({
  name: 'read_history',
  title: "Read a session's history",
  description:
    'Reads what was said in a session: the newest messages of its transcript, or the newest items of its item history (agent-framework sessions), oldest first. ' +
    "Use it after search_sessions or list_sessions to read a conversation, or to page back through it: pass the answer's nextBefore as before to get the entries just older. " +
    'Answers {sessionId, source, status, total, entries, hasOlder, nextBefore, truncated}; a transcript entry is {index, turnIndex, role, at, content}, an item entry {id, index, at, item}. ' +
    `Each message's content or item is cut at 4,000 characters (the cut says how much is left out), and the answer at ${MAX_CHARS.toLocaleString('en')} characters of JSON: the oldest entries are left out first ("truncated": true), and nextBefore reaches them.`,
  scope: 'read',
  maxChars: MAX_CHARS,
  input,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(client, args) {
    if (args.source === 'items') return itemsPage(client, args);
    const session = await client.getSession(args.sessionId);
    if (args.source === 'transcript' || session.messageCount > 0 || session.itemCount === 0) return transcriptPage(client, args, session.status);
    return itemsPage(client, args);
  },
});
