// What the ledger needs of a Hermes session that Hermes may not have kept: a source, and the token counters.
import type { JsonObject, JsonValue } from '../../events/eventStore.js';
import type { TurnUsage } from '../../events/session/sessionEvents.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import type { HermesEntry } from './hermesSessionsJson.js';
import type { HermesSessionRow } from './hermesStateDb.js';

const PLATFORM = /^[a-z0-9_-]{1,32}$/;

export function dropNulls(record: Record<string, JsonValue | null | undefined>): JsonObject {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null && value !== undefined)) as JsonObject;
}

export function parsedOrigin(row: HermesSessionRow | undefined): Record<string, unknown> | null {
  if (!row?.originJson) return null;
  try {
    const parsed = JSON.parse(row.originJson) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A source for sessions nobody recorded one for: the platform Hermes tagged them with, as a DM of their user. */
export function fallbackSource(row: HermesSessionRow | undefined, entry: HermesEntry | undefined): SessionSource {
  const platform = entry?.platform ?? row?.source ?? 'hermes';
  const chatType = entry?.chat_type ?? row?.chatType ?? 'dm';
  return {
    platform: PLATFORM.test(platform) ? platform : 'hermes',
    chatType: (['dm', 'group', 'channel', 'thread'] as const).find((type) => type === chatType) ?? 'dm',
    ...(row?.chatId ? { chatId: row.chatId } : {}),
    ...(row?.userId ? { userId: row.userId } : {}),
    ...(row?.threadId ? { threadId: row.threadId } : {}),
    isBot: false,
    roleAuthorized: false,
  };
}

export function usageOf(row: HermesSessionRow | undefined, entry: HermesEntry | undefined): TurnUsage {
  // The routing entry's counters are the gateway's own for its current session; state.db's otherwise.
  const fromEntry = entry && (entry.input_tokens || entry.output_tokens || entry.cache_read_tokens || entry.cache_write_tokens);
  return {
    inputTokens: Math.round((fromEntry ? entry.input_tokens : row?.inputTokens) ?? 0),
    outputTokens: Math.round((fromEntry ? entry.output_tokens : row?.outputTokens) ?? 0),
    cacheReadTokens: Math.round((fromEntry ? entry.cache_read_tokens : row?.cacheReadTokens) ?? 0),
    cacheWriteTokens: Math.round((fromEntry ? entry.cache_write_tokens : row?.cacheWriteTokens) ?? 0),
    lastPromptTokens: entry?.last_prompt_tokens ?? null,
    costUsd: (fromEntry ? entry.estimated_cost_usd : row?.estimatedCostUsd) ?? 0,
  };
}

export const zeroUsage: TurnUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 };
export const hasUsage = (usage: TurnUsage) =>
  usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens > 0 || usage.costUsd > 0 || usage.lastPromptTokens !== null;
