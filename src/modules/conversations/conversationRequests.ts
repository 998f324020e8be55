// Request schemas of the conversation routes: validated at the edge, documented from the same schema.
import { z } from 'zod';
import { resumeReasons } from '../../events/conversation/conversationEvents.js';
import { ValidationError } from '../../errors/ledgerError.js';
import { sessionSourceSchema } from '../sessions/domain/sessionSourceSchema.js';
import { resetPolicySchema } from '../../config/resetPolicySettings.js';

export const gatewayIdSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'gatewayId must be 1-128 of A-Z a-z 0-9 . _ : -');

export const resolveRequestSchema = z.strictObject({
  source: sessionSourceSchema,
  forceNew: z.boolean().default(false),
  options: z
    .strictObject({
      groupSessionsPerUser: z.boolean().optional(),
      threadSessionsPerUser: z.boolean().optional(),
      agent: z
        .string()
        .regex(/^[a-z0-9_-]{1,32}$/, 'agent must be 1-32 of a-z 0-9 _ -')
        .optional(),
      /** This conversation's own reset policy (Hermes' fields), stored with it; null: back to the server's. */
      resetPolicy: resetPolicySchema.nullable().optional(),
    })
    .default({}),
  /** What the gateway does for the conversation besides turns; a reset policy never resets it while that is young. */
  activity: z
    .strictObject({
      /** Start of the gateway's oldest live background process for this conversation; null: none. */
      backgroundProcessSince: z.iso.datetime({ offset: true }).nullable(),
    })
    .optional(),
  gatewayId: gatewayIdSchema.default('default'),
});

export const switchRequestSchema = z.strictObject({ sessionId: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'sessionId has an invalid format') });
/** keepRuntime: leave the conversation's runtime binding in place (by default reset and suspend end it). */
const keepRuntime = z.boolean().default(false);
export const resetRequestSchema = z.strictObject({
  keepRuntime,
  force: z.boolean().default(false),
  /** Hermes' reset_session(display_name): the conversation's name from now on; omitted, null or empty: kept. */
  displayName: z.preprocess(
    (value) => (value === '' || value === null ? undefined : value),
    z.string().max(1024, 'displayName is at most 1024 characters').optional(),
  ),
});
/** Hermes' update_session(key, last_prompt_tokens): what a gateway sets on the entry without a turn. */
export const updateConversationRequestSchema = z.strictObject({
  /** The prompt size the model last reported for the current session; replaces the counter. */
  lastPromptTokens: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});
export const suspendRequestSchema = z.strictObject({ reason: z.string().min(1).max(200).default('stop'), keepRuntime });
export const resumePendingRequestSchema = z.strictObject({ reason: z.enum(resumeReasons as [string, ...string[]]) });
export const contextQuerySchema = z.strictObject({
  redactPii: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  connectedPlatforms: z
    .string()
    .regex(/^[a-z0-9_,-]{0,512}$/, 'connectedPlatforms is a comma-separated list of platform names')
    .optional()
    .transform((value) => (value ? value.split(',').filter(Boolean) : undefined)),
  /** `hermes`: the block byte for byte as Hermes' build_session_context_prompt renders it; `ledger` (default): the service's own. */
  format: z.enum(['ledger', 'hermes']).default('ledger'),
  minPosition: z.string().optional(),
});

/** A key arrives URL-decoded by the router; keep it bounded and printable. */
export function validSessionKey(key: string): string {
  if (key.length === 0 || key.length > 2048 || /[\u0000-\u001f\u007f]/.test(key)) {
    throw new ValidationError('a session key is 1-2048 printable characters', undefined, 'INVALID_SESSION_KEY');
  }
  return key;
}
