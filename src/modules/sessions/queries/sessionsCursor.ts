// The listing's opaque cursor: the (updatedAt, sessionKey) of the last entry of a page, as base64url JSON.
import { z } from 'zod';
import { ValidationError } from '../../../errors/ledgerError.js';
import { isStorableInstant } from '../../../http/storableTimestamp.js';
import { isStorableText } from '../../../http/unsupportedCharacters.js';

export interface SessionsCursor {
  updatedAt: Date;
  sessionKey: string;
}

// Forged values the database would fail on (a 500) rather than compare: refused as any cursor not handed out.
const cursorSchema = z.strictObject({
  updatedAt: z.iso.datetime().refine((text) => isStorableInstant(new Date(text))),
  sessionKey: z.string().min(1).refine(isStorableText),
});

export function encodeSessionsCursor(cursor: SessionsCursor): string {
  return Buffer.from(JSON.stringify({ updatedAt: cursor.updatedAt.toISOString(), sessionKey: cursor.sessionKey })).toString('base64url');
}

export function decodeSessionsCursor(text: string): SessionsCursor {
  const invalid = () => new ValidationError('cursor is not one this service handed out', { cursor: text }, 'INVALID_CURSOR');
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const result = cursorSchema.safeParse(parsed);
  if (!result.success) throw invalid();
  return { updatedAt: new Date(result.data.updatedAt), sessionKey: result.data.sessionKey };
}
