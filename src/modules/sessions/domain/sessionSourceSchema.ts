// SessionSource: where an inbound message came from, validated at the edge and frozen.
import { z } from 'zod';
import { ValidationError } from '../../../errors/ledgerError.js';
import { chatTypes } from '../../../events/conversation/sessionSource.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

const MAX_ID_LENGTH = 256;
const MAX_TEXT_LENGTH = 1024;

// Adapters send "" or null (a Python gateway's None) for "not known"; one meaning for absent keeps the key rules simple.
const absentAsUndefined = (value: unknown): unknown => (value === '' || value === null ? undefined : value);

// Telegram ids arrive as JSON numbers; past 2^53 a number has already lost digits, so only safe integers are coerced.
const integerIdAsString = (value: unknown): unknown => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value);

const requiredField = <T extends z.ZodType>(schema: T) => z.preprocess(absentAsUndefined, schema);
// Ids go into the session key, which every key route refuses with a control character in it: such an id would make
// a conversation no route (erasure included) could name. The same characters as validSessionKey's.
const optionalId = z.preprocess(
  (value) => absentAsUndefined(integerIdAsString(value)),
  z
    .string({ error: 'expected a string or a safe integer' })
    .max(MAX_ID_LENGTH, `ids are at most ${MAX_ID_LENGTH} characters`)
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'ids hold no control characters (U+0000-U+001F, U+007F)')
    .optional(),
);
const optionalText = z.preprocess(absentAsUndefined, z.string().max(MAX_TEXT_LENGTH, `names and topics are at most ${MAX_TEXT_LENGTH} characters`).optional());
const flag = z.preprocess(absentAsUndefined, z.boolean().default(false));

export const sessionSourceSchema = z
  .strictObject({
    platform: requiredField(z.string().regex(/^[a-z0-9_-]{1,32}$/, 'platform must match ^[a-z0-9_-]{1,32}$')),
    // Hermes' SessionSource defaults chat_type to "dm".
    chatType: z.preprocess(absentAsUndefined, z.enum(chatTypes).default('dm')),
    chatId: optionalId,
    chatName: optionalText,
    userId: optionalId,
    userName: optionalText,
    threadId: optionalId,
    chatTopic: optionalText,
    userIdAlt: optionalId,
    chatIdAlt: optionalId,
    isBot: flag,
    guildId: optionalId,
    parentChatId: optionalId,
    messageId: optionalId,
    roleAuthorized: flag,
  })
  .readonly();

// What the schema gives is exactly what the events store: a field added to one and not the other does not compile.
const storedAsParsed: (parsed: z.output<typeof sessionSourceSchema>) => SessionSource = (parsed) => parsed;
const parsedAsStored: (stored: SessionSource) => z.output<typeof sessionSourceSchema> = (stored) => stored;
void storedAsParsed;
void parsedAsStored;

export type SessionSourceInput = z.input<typeof sessionSourceSchema>;

/** Parses an untrusted source, failing with the service's ValidationError. */
export function parseSessionSource(input: unknown): SessionSource {
  const result = sessionSourceSchema.safeParse(input);
  if (!result.success) {
    throw new ValidationError('Invalid session source', {
      issues: result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  }
  return result.data;
}
