// A Hermes transcript (a flat list of messages) as ledger turns: a turn starts at each user message.
import type { JsonObject, JsonValue } from '../../events/eventStore.js';
import type { MessageInput, MessageRole } from '../../events/session/sessionEvents.js';
import type { HermesMessageRow } from './hermesStateDb.js';

export interface PlannedTurn {
  messages: MessageInput[];
  /** ISO time of the turn's last message. */
  at: string;
}

export interface TranscriptConversion {
  turns: PlannedTurn[];
  /** Rewound away in Hermes (active = 0): not imported, counted. */
  inactive: number;
  /** Roles the ledger has no place for (Hermes keeps some bookkeeping rows): not imported, counted by role. */
  unknownRoles: Record<string, number>;
}

const ROLES: readonly MessageRole[] = ['system', 'user', 'assistant', 'tool'];

export const isoFromSeconds = (seconds: number) => new Date(Math.round(seconds * 1000)).toISOString();

function parsedToolCalls(text: string | null): { toolCalls?: JsonValue[]; raw?: string } {
  if (text === null || text === '') return {};
  try {
    const parsed = JSON.parse(text) as JsonValue;
    return { toolCalls: Array.isArray(parsed) ? parsed : [parsed] };
  } catch {
    return { raw: text };
  }
}

/** One Hermes row as a transcript message; its id, time and model bookkeeping go to metadata. */
export function hermesMessage(row: HermesMessageRow): MessageInput {
  const { toolCalls, raw } = parsedToolCalls(row.toolCalls);
  const metadata: JsonObject = { hermesMessageId: row.id, at: isoFromSeconds(row.timestamp) };
  if (row.finishReason !== null) metadata.finishReason = row.finishReason;
  if (row.tokenCount !== null) metadata.tokenCount = row.tokenCount;
  if (raw !== undefined) metadata.toolCallsText = raw;
  return {
    role: row.role as MessageRole,
    content: row.content,
    ...(row.toolName !== null ? { name: row.toolName } : {}),
    ...(row.toolCallId !== null ? { toolCallId: row.toolCallId } : {}),
    ...(toolCalls !== undefined ? { toolCalls } : {}),
    metadata,
  };
}

export function hermesTurns(rows: readonly HermesMessageRow[]): TranscriptConversion {
  const turns: PlannedTurn[] = [];
  const unknownRoles: Record<string, number> = {};
  let inactive = 0;
  let current: { messages: MessageInput[]; last: number } | null = null;
  for (const row of rows) {
    if (!row.active) {
      inactive += 1;
      continue;
    }
    if (!(ROLES as readonly string[]).includes(row.role)) {
      unknownRoles[row.role] = (unknownRoles[row.role] ?? 0) + 1;
      continue;
    }
    // Messages before the first user message (a system prompt) belong to the first turn.
    if (row.role === 'user' && current && current.messages.some((message) => message.role === 'user')) {
      turns.push({ messages: current.messages, at: isoFromSeconds(current.last) });
      current = null;
    }
    current ??= { messages: [], last: row.timestamp };
    current.messages.push(hermesMessage(row));
    current.last = Math.max(current.last, row.timestamp);
  }
  if (current) turns.push({ messages: current.messages, at: isoFromSeconds(current.last) });
  return { turns, inactive, unknownRoles };
}
