// The index in Hermes' sessions.json shape: session_key → SessionEntry, snake_case, as the Python gateway reads it.
import { hermesEndReason } from './domain/hermesEndReasons.js';
import type { CarriedEntryFields } from '../../events/conversation/conversationEvents.js';
import type { ChatType, SessionSource } from '../../events/conversation/sessionSource.js';
import type { BoundConversationEntryRow } from '../../projections/sessionsIndex/conversationEntryRow.js';
import { type CostStatus, type SessionEntryView, toSessionEntryView } from './sessionEntryView.js';

/** SessionSource.to_dict(): every field present, None (null) for what the source did not say. */
export interface SessionSourceJson {
  platform: string;
  chat_id: string | null;
  chat_name: string | null;
  chat_type: ChatType;
  user_id: string | null;
  user_name: string | null;
  thread_id: string | null;
  chat_topic: string | null;
  user_id_alt: string | null;
  chat_id_alt: string | null;
  is_bot: boolean;
  guild_id: string | null;
  parent_chat_id: string | null;
  message_id: string | null;
  role_authorized: boolean;
}

export interface SessionsJsonEntry {
  session_key: string;
  session_id: string;
  created_at: string;
  updated_at: string;
  origin: SessionSourceJson;
  display_name: string | null;
  platform: string;
  chat_type: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  total_tokens: number;
  estimated_cost_usd: number;
  cost_status: CostStatus;
  last_prompt_tokens: number;
  was_auto_reset: boolean;
  auto_reset_reason: string | null;
  reset_had_activity: boolean;
  is_fresh_reset: boolean;
  expiry_finalized: boolean;
  suspended: boolean;
  resume_pending: boolean;
  resume_reason: string | null;
  last_resume_marked_at: string | null;
}

export type SessionsJson = Record<string, SessionsJsonEntry>;

/** An entry to export: the view, and the fields an import carried over without the ledger modelling them. */
export type ExportedEntry = SessionEntryView & { carried?: CarriedEntryFields | null };

export function exportedEntryOf(row: BoundConversationEntryRow): ExportedEntry {
  return { ...toSessionEntryView(row), carried: row.carried };
}

export function toSessionsJson(entries: readonly ExportedEntry[]): SessionsJson {
  return Object.fromEntries(entries.map((entry) => [entry.sessionKey, toSessionsJsonEntry(entry)]));
}

/** Fields the ledger derives rather than keeps: a value the import carried for them stands until the session changes. */
const DERIVED_FIELDS = ['cost_status', 'expiry_finalized'] as const;

/** Carried fields come back as the import found them, beside (never over) the ones the ledger keeps. */
export function toSessionsJsonEntry(entry: ExportedEntry): SessionsJsonEntry {
  const { origin: carriedOrigin, ...carried } = entry.carried ?? {};
  const origin = toSessionSourceJson(entry.origin);
  const derived = Object.fromEntries(DERIVED_FIELDS.filter((key) => key in carried).map((key) => [key, carried[key]]));
  return {
    ...carried,
    ...ledgerFieldsOf(entry),
    ...derived,
    origin: carriedOrigin && typeof carriedOrigin === 'object' && !Array.isArray(carriedOrigin) ? { ...carriedOrigin, ...origin } : origin,
  };
}

function ledgerFieldsOf(entry: SessionEntryView): SessionsJsonEntry {
  return {
    session_key: entry.sessionKey,
    session_id: entry.sessionId,
    created_at: entry.createdAt.toISOString(),
    updated_at: entry.updatedAt.toISOString(),
    origin: toSessionSourceJson(entry.origin),
    display_name: entry.displayName,
    platform: entry.platform,
    chat_type: entry.chatType,
    input_tokens: entry.inputTokens,
    output_tokens: entry.outputTokens,
    cache_read_tokens: entry.cacheReadTokens,
    cache_write_tokens: entry.cacheWriteTokens,
    total_tokens: entry.totalTokens,
    estimated_cost_usd: entry.estimatedCostUsd,
    cost_status: entry.costStatus,
    last_prompt_tokens: entry.lastPromptTokens,
    was_auto_reset: entry.wasAutoReset,
    auto_reset_reason: hermesEndReason(entry.autoResetReason),
    reset_had_activity: entry.resetHadActivity,
    is_fresh_reset: entry.isFreshReset,
    expiry_finalized: entry.expiryFinalized,
    suspended: entry.suspended,
    resume_pending: entry.resumePending,
    resume_reason: entry.resumeReason,
    last_resume_marked_at: entry.lastResumeMarkedAt?.toISOString() ?? null,
  };
}

export function toSessionSourceJson(source: SessionSource): SessionSourceJson {
  return {
    platform: source.platform,
    chat_id: source.chatId ?? null,
    chat_name: source.chatName ?? null,
    chat_type: source.chatType,
    user_id: source.userId ?? null,
    user_name: source.userName ?? null,
    thread_id: source.threadId ?? null,
    chat_topic: source.chatTopic ?? null,
    user_id_alt: source.userIdAlt ?? null,
    chat_id_alt: source.chatIdAlt ?? null,
    is_bot: source.isBot,
    guild_id: source.guildId ?? null,
    parent_chat_id: source.parentChatId ?? null,
    message_id: source.messageId ?? null,
    role_authorized: source.roleAuthorized,
  };
}
