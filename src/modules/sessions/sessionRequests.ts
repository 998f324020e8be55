// Request schemas of the session routes.
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';
import { jsonObject, jsonValue as json } from '../../http/jsonValues.js';

export const messageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: json,
  name: z.string().max(256).optional(),
  toolCallId: z.string().max(256).optional(),
  toolCalls: z.array(json).max(256).optional(),
  metadata: jsonObject.optional(),
});

const tokens = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const usageSchema = z.strictObject({
  inputTokens: tokens.default(0),
  outputTokens: tokens.default(0),
  cacheReadTokens: tokens.default(0),
  cacheWriteTokens: tokens.default(0),
  lastPromptTokens: tokens.nullable().default(null),
  costUsd: z.number().min(0).max(1e9).default(0),
});

export const turnRequestSchema = z
  .strictObject({
    // The per-turn count is MAX_MESSAGES_PER_TURN, checked in the controller (413 TOO_MANY_MESSAGES); this is its ceiling.
    messages: z.array(messageSchema).max(100_000),
    usage: usageSchema.default({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 }),
    status: z.enum(['completed', 'failed', 'interrupted']).default('completed'),
    /** The lease POST /turns/start answered: the turn is recorded only while that start's turn is still in flight (409 LEASE_LOST). */
    lease: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    /** Refuse the turn (400 TOOL_RESULT_MISMATCH, nothing written) when its tool results do not match calls. */
    strictToolResults: z.boolean().default(false),
  })
  // A completed turn with nothing said is a caller bug (an empty checkpoint, a turn count that lies); a turn that
  // failed or was interrupted may well have produced nothing.
  .refine((turn) => turn.status !== 'completed' || turn.messages.length > 0, {
    path: ['messages'],
    message: 'a completed turn records at least one message (a failed or interrupted turn may have none)',
  });

export const rewriteRequestSchema = z.strictObject({ messages: z.array(messageSchema).max(100_000) });
export const rewindRequestSchema = z.strictObject({ turns: z.number().int().min(-1_000_000).max(1_000_000).default(1) });
export const transcriptQuerySchema = z.strictObject({
  includeDeleted: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** Only the messages of this context slot. */
  slot: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional(),
  minPosition: z.string().optional(),
});

export function validSessionId(id: string): string {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(id)) throw new ValidationError('a session id is 1-128 of A-Z a-z 0-9 _ . -', { sessionId: id }, 'INVALID_SESSION_ID');
  return id;
}

const checkpointId = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'a checkpoint id as GET /checkpoints lists them');
const agentName = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, '1-64 of A-Z a-z 0-9 _ . : -');
const metadata = jsonObject;
const positionQuery = { minPosition: z.string().optional() };
const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const checkpointRequestSchema = z.strictObject({ label: z.string().min(1).max(200).nullable().default(null) });
export const checkpointsQuerySchema = z.strictObject({
  limit: limit(1_000, 100),
  /** Exclusive: checkpoints older than this revision (the previous page's `nextBefore`). */
  before: z.coerce.number().int().min(0).optional(),
});
export const rollbackRequestSchema = z.strictObject({ checkpointId });
export const childRequestSchema = z.strictObject({ agentName, metadata: metadata.default({}) });
export const forkRequestSchema = z.strictObject({ checkpointId: checkpointId.optional(), agentName: agentName.optional(), metadata: metadata.default({}) });
export const memoryRequestSchema = z.strictObject({ value: json, metadata: metadata.default({}) });
export const slotRequestSchema = z.strictObject({ name: z.string() });
export const destroyQuerySchema = z.strictObject({
  cascade: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});
export const childrenQuerySchema = z.strictObject({ limit: limit(500, 100), cursor: z.string().max(2_000).optional(), ...positionQuery });
export const treeQuerySchema = z.strictObject({
  limit: limit(500, 100),
  cursor: z.string().max(20_000).optional(),
  /** How many levels below the session to include. */
  maxDepth: z.coerce.number().int().min(0).max(10_000).default(100),
  ...positionQuery,
});
export const positionQuerySchema = z.strictObject(positionQuery);
export const eventsQuerySchema = z.strictObject({ fromRevision: z.coerce.number().int().min(0).default(0), limit: limit(1_000, 100) });
export const stateQuerySchema = z
  .strictObject({ revision: z.coerce.number().int().min(0).optional(), at: z.iso.datetime({ offset: true }).optional() })
  .refine((query) => query.revision === undefined || query.at === undefined, 'give revision or at, not both');

export function validMemoryName(name: string): string {
  if (!/^[A-Za-z0-9_.:@-]{1,200}$/.test(name))
    throw new ValidationError('a memory entry name is 1-200 of A-Z a-z 0-9 _ . : @ -', { name }, 'INVALID_MEMORY_NAME');
  return name;
}

export function validSlotName(name: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new ValidationError('a slot name is 1-64 of A-Z a-z 0-9 _ . -', { name }, 'INVALID_SLOT_NAME');
  return name;
}
