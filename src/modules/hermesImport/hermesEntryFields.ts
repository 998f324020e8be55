// What of a Hermes routing entry the ledger keeps as its own state, and what it carries over verbatim for the export.
import type { CarriedEntryFields, ImportedRoutingEntry } from '../../events/conversation/conversationEvents.js';
import { resumeReasons, type ResumeReason } from '../../events/conversation/conversationEvents.js';
import type { JsonObject, JsonValue } from '../../events/eventStore.js';
import type { HermesEntry } from './hermesSessionsJson.js';

/** SessionEntry.to_dict() keys the ledger models (its sessions.json export writes them from its own state). */
const MODELLED_ENTRY_KEYS = new Set([
  'session_key',
  'session_id',
  'created_at',
  'updated_at',
  'origin',
  'display_name',
  'platform',
  'chat_type',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'total_tokens',
  'estimated_cost_usd',
  'last_prompt_tokens',
  'was_auto_reset',
  'auto_reset_reason',
  'reset_had_activity',
  'is_fresh_reset',
  'suspended',
  'resume_pending',
  'resume_reason',
  'last_resume_marked_at',
  // Derived by the ledger; carried below only where Hermes' value differs.
  'cost_status',
  'expiry_finalized',
]);

/** SessionSource.to_dict() keys the ledger's SessionSource holds. */
const MODELLED_SOURCE_KEYS = new Set([
  'platform',
  'chat_id',
  'chat_name',
  'chat_type',
  'user_id',
  'user_name',
  'thread_id',
  'chat_topic',
  'user_id_alt',
  'chat_id_alt',
  'is_bot',
  'guild_id',
  'parent_chat_id',
  'message_id',
  'role_authorized',
]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fields of Hermes' entry (and of its origin) the ledger does not model, as Hermes wrote them: its `metadata`,
 * `model_override`, `prev_session_id`, the crash marker `active_turn_*`, the source's `scope_id` and `profile`, and
 * any field a newer Hermes adds. Null when there are none.
 */
export function carriedFieldsOf(raw: Record<string, unknown>, costStatus: string): CarriedEntryFields | null {
  const carried: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || MODELLED_ENTRY_KEYS.has(key)) continue;
    carried[key] = value as JsonValue;
  }
  if (typeof raw.cost_status === 'string' && raw.cost_status !== costStatus) carried.cost_status = raw.cost_status;
  if (raw.expiry_finalized === true) carried.expiry_finalized = true;
  if (isObject(raw.origin)) {
    const origin = Object.fromEntries(Object.entries(raw.origin).filter(([key, value]) => value !== undefined && !MODELLED_SOURCE_KEYS.has(key))) as JsonObject;
    if (Object.keys(origin).length > 0) carried.origin = origin;
  }
  return Object.keys(carried).length > 0 ? (carried as CarriedEntryFields) : null;
}

/** The entry's flags and times as Hermes last wrote them; what Hermes left out stays as the replayed history made it. */
export function importedRoutingEntry(
  entry: HermesEntry,
  replayed: Omit<ImportedRoutingEntry, 'at' | 'carried'>,
  carried: CarriedEntryFields | null,
): Omit<ImportedRoutingEntry, 'at'> {
  const resumeReason = entry.resume_reason && (resumeReasons as readonly string[]).includes(entry.resume_reason) ? (entry.resume_reason as ResumeReason) : null;
  const resumePending = entry.resume_pending ?? replayed.resumePending;
  return {
    displayName: entry.display_name !== undefined ? entry.display_name : replayed.displayName,
    createdAt: entry.created_at ?? replayed.createdAt,
    updatedAt: entry.updated_at ?? replayed.updatedAt,
    suspended: entry.suspended ?? replayed.suspended,
    resumePending,
    resumeReason: resumePending ? (resumeReason ?? 'restart_interrupted') : resumeReason,
    lastResumeMarkedAt: entry.last_resume_marked_at ?? (resumePending ? (entry.updated_at ?? replayed.updatedAt) : null),
    wasAutoReset: entry.was_auto_reset ?? replayed.wasAutoReset,
    autoResetReason: entry.auto_reset_reason !== undefined ? entry.auto_reset_reason : replayed.autoResetReason,
    resetHadActivity: entry.reset_had_activity ?? replayed.resetHadActivity,
    isFreshReset: entry.is_fresh_reset ?? replayed.isFreshReset,
    carried,
  };
}
