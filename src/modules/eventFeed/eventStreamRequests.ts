// The lifecycle stream's query: which types, which conversation, from where.
import { z } from 'zod';
import { validSessionKey } from '../conversations/conversationRequests.js';

export const MAX_STREAM_TYPES = 64;
const EVENT_TYPE = /^[A-Za-z][A-Za-z0-9_.]{0,63}$/;

export const eventStreamQuerySchema = z.strictObject({
  /** Comma-separated event types (`Suspended,ResumeMarked,JobFired`); absent or empty: every type. */
  types: z
    .string()
    .max(4_000)
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type.length > 0),
    )
    .pipe(
      z.array(z.string().regex(EVENT_TYPE, 'each type is an event type name like SessionBound')).max(MAX_STREAM_TYPES, `at most ${MAX_STREAM_TYPES} types`),
    ),
  sessionKey: z
    .string()
    .optional()
    .transform((key) => (key === undefined ? undefined : validSessionKey(key))),
  /** Exclusive start position when there is no Last-Event-ID; absent: only events from now on. */
  fromPosition: z
    .string()
    .regex(/^\d{1,16}$/, 'fromPosition must be a non-negative whole number')
    .optional()
    .transform((value) => (value === undefined ? undefined : Number(value))),
});

export type EventStreamQuery = z.infer<typeof eventStreamQuerySchema>;
