// Hermes' sessions.json: session_key → SessionEntry.to_dict(), snake_case, None as null, times as ISO strings.
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';
import { chatTypes } from '../../events/conversation/sessionSource.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import { parseSessionSource } from '../sessions/domain/sessionSourceSchema.js';

const optionalText = z.string().nullish();
const count = z.number().nonnegative().nullish();
const flag = z.boolean().nullish();
/**
 * Python's isoformat(): with an offset, or naive (Hermes writes datetime.now()); naive times are read as UTC.
 * Normalised to the ledger's ISO form so that times compare as strings; unreadable ones count as absent.
 */
const time = z
  .string()
  .nullish()
  .transform((value) => {
    if (!value) return null;
    const zoned = /(Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`;
    const at = new Date(zoned.replace(' ', 'T'));
    return Number.isNaN(at.getTime()) ? null : at.toISOString();
  });

/** The fields the import reads; others (there are more in newer Hermes versions) are ignored. */
export const hermesEntrySchema = z.looseObject({
  session_key: optionalText,
  session_id: z.string().min(1),
  created_at: time,
  updated_at: time,
  origin: z.record(z.string(), z.unknown()).nullish(),
  display_name: optionalText,
  platform: optionalText,
  chat_type: optionalText,
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  estimated_cost_usd: count,
  last_prompt_tokens: count,
  suspended: flag,
  was_auto_reset: flag,
  auto_reset_reason: optionalText,
  reset_had_activity: flag,
  is_fresh_reset: flag,
  resume_pending: flag,
  resume_reason: optionalText,
  last_resume_marked_at: time,
});

export type HermesEntry = z.infer<typeof hermesEntrySchema>;

export const hermesSessionsJsonSchema = z.record(z.string().min(1), hermesEntrySchema);

export function parseHermesSessionsJson(value: unknown): Record<string, HermesEntry> {
  const parsed = hermesSessionsJsonSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ValidationError(`sessions.json: ${issue.path.join('.')}: ${issue.message}`, { issues: parsed.error.issues.length }, 'INVALID_HERMES_EXPORT');
  }
  return parsed.data;
}

const camel = (key: string) => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
const sourceKeys = new Set([
  'platform',
  'chatType',
  'chatId',
  'chatName',
  'userId',
  'userName',
  'threadId',
  'chatTopic',
  'userIdAlt',
  'chatIdAlt',
  'isBot',
  'guildId',
  'parentChatId',
  'messageId',
  'roleAuthorized',
]);

/**
 * SessionSource.to_dict() (or the state.db's origin_json) → the ledger's SessionSource. Unknown keys are dropped;
 * without an origin the entry's platform and chat type stand in. Null when even those are missing or invalid.
 */
export function hermesOrigin(
  origin: Record<string, unknown> | null | undefined,
  fallback: { platform?: string | null; chatType?: string | null },
): SessionSource | null {
  const fields = Object.fromEntries(
    Object.entries(origin ?? {})
      .map(([key, value]) => [camel(key), value])
      .filter(([key]) => sourceKeys.has(key as string)),
  );
  const candidate = { platform: fallback.platform ?? undefined, chatType: fallback.chatType ?? undefined, ...fields };
  if (typeof candidate.chatType === 'string' && !(chatTypes as readonly string[]).includes(candidate.chatType)) return null;
  try {
    return parseSessionSource(candidate);
  } catch {
    return null;
  }
}
