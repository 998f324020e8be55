// The search's opaque cursor: how many hits (or sessions) earlier pages held, as base64url JSON.
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';

/** Deeper than this a search is better narrowed than paged. */
export const MAX_SEARCH_OFFSET = 10_000;

const cursorSchema = z.strictObject({ offset: z.number().int().min(1).max(MAX_SEARCH_OFFSET) });

export function encodeSearchCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

export function decodeSearchCursor(text: string): number {
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
  return result.data.offset;
}
