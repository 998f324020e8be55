// Request schemas of the session routes.
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';

const json: z.ZodType<unknown> = z.json();

export const messageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: json,
  name: z.string().max(256).optional(),
  toolCallId: z.string().max(256).optional(),
  toolCalls: z.array(json).max(256).optional(),
  metadata: z.record(z.string(), json).optional(),
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

export const turnRequestSchema = z.strictObject({
  messages: z.array(messageSchema).max(1_000),
  usage: usageSchema.default({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 }),
  status: z.enum(['completed', 'failed', 'interrupted']).default('completed'),
});

export const rewriteRequestSchema = z.strictObject({ messages: z.array(messageSchema).max(100_000) });
export const rewindRequestSchema = z.strictObject({ turns: z.number().int().min(-1_000_000).max(1_000_000).default(1) });
export const transcriptQuerySchema = z.strictObject({
  includeDeleted: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  minPosition: z.string().optional(),
});

export function validSessionId(id: string): string {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(id)) throw new ValidationError('a session id is 1-128 of A-Z a-z 0-9 _ . -', { sessionId: id }, 'INVALID_SESSION_ID');
  return id;
}
