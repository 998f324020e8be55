// What a tool of the ledger's MCP server is: its name and schema for the model, the scope it needs, its size cap, its call.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { LedgerClient } from '../client/index.js';

export interface LedgerTool {
  name: string;
  title: string;
  /** Written for a model: what it does, when to use it, what it answers. */
  description: string;
  /** `write` tools are left out for a `read` token: its tools/list does not show them. */
  scope: 'read' | 'write';
  /** Characters of JSON the answer takes at most (the text the model reads). */
  maxChars: number;
  input: z.ZodObject;
  annotations: ToolAnnotations;
  /** Arguments already checked against `input` by the MCP server. */
  run(client: LedgerClient, args: unknown): Promise<object>;
}

/** A tool whose `run` takes its own schema's output: the MCP server validates arguments against `input` before the call. */
export function ledgerTool<Input extends z.ZodObject>(
  tool: Omit<LedgerTool, 'input' | 'run'> & { input: Input; run(client: LedgerClient, args: z.output<Input>): Promise<object> },
): LedgerTool {
  return tool;
}

/** A session id as the ledger names them (GET /v1/sessions/{id}): the same rule the API checks. */
export const sessionIdArgument = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,128}$/, 'a session id is 1-128 of A-Z a-z 0-9 _ . - (as search_sessions and list_sessions answer them)')
  .describe('The session id, e.g. "20261129_101500_1a2b3c4d" or "ag_5d2c…" (as search_sessions or list_sessions answer it).');

export const checkpointIdArgument = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'a checkpoint id as show_session lists them, e.g. "cp-12"')
  .describe('A checkpoint id as show_session lists it, e.g. "cp-12".');

/** An ISO 8601 time with its offset, refused here with a clear message rather than by the ledger. */
export const timeArgument = (what: string) => z.iso.datetime({ offset: true, message: 'an ISO 8601 time such as 2026-12-01T00:00:00Z' }).describe(what);

/**
 * A write's Idempotency-Key. The client sends a fresh one per call (the same on its own retries); a model that retries a
 * call whose answer it did not get passes the key that call's error named, and the ledger answers the first answer.
 */
export const idempotencyKeyArgument = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, '1-255 printable ASCII characters without spaces')
  .optional()
  .describe('Only when retrying a call that failed without an answer: the idempotencyKey its error named, so the write is not done twice.');
