// A page cursor a client hands back untouched: a small JSON value as base64url. What a decoded cursor may hold is its
// schema's to say, so a forged one (or one the database would fail on) is refused as any cursor not handed out.
import type { z } from 'zod';
import { ValidationError } from '../errors/ledgerError.js';

export interface OpaqueCursorCodec<Value> {
  encode(value: Value): string;
  /** The value a cursor stands for, or 400 INVALID_CURSOR. */
  decode(text: string): Value;
}

/** `schema` checks the JSON a cursor holds; `toJson` and `fromJson` map between it and the value the caller pages by. */
export function opaqueCursorCodec<Json, Value>(
  schema: z.ZodType<Json>,
  toJson: (value: Value) => Json,
  fromJson: (json: Json) => Value,
): OpaqueCursorCodec<Value> {
  return {
    encode: (value) => Buffer.from(JSON.stringify(toJson(value))).toString('base64url'),
    decode(text) {
      const invalid = () => new ValidationError('cursor is not one this service handed out', { cursor: text }, 'INVALID_CURSOR');
      if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      const result = schema.safeParse(parsed);
      if (!result.success) throw invalid();
      return fromJson(result.data);
    },
  };
}
