// The page cursors' one codec: what it hands out decodes to the same value, and anything else is 400 INVALID_CURSOR.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../src/errors/ledgerError.js';
import { opaqueCursorCodec } from '../../src/http/opaqueCursor.js';
import { decodeSearchCursor, encodeSearchCursor } from '../../src/modules/search/searchCursor.js';
import { decodeSessionsCursor, encodeSessionsCursor } from '../../src/modules/sessions/queries/sessionsCursor.js';

const refusal = (decode: () => unknown) => {
  try {
    decode();
  } catch (error) {
    return error instanceof ValidationError ? error.code : error;
  }
  return 'accepted';
};

describe('opaque cursors', () => {
  const codec = opaqueCursorCodec(
    z.strictObject({ at: z.number().int().min(0) }),
    (at: number) => ({ at }),
    (json) => json.at,
  );

  it('decodes what it encoded', () => {
    expect(codec.decode(codec.encode(42))).toBe(42);
    expect(codec.encode(42)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('refuses text that is not base64url, not JSON, or JSON its schema refuses', () => {
    const encode = (json: string) => Buffer.from(json).toString('base64url');
    expect(refusal(() => codec.decode('a+b/'))).toBe('INVALID_CURSOR');
    expect(refusal(() => codec.decode(encode('{not json')))).toBe('INVALID_CURSOR');
    expect(refusal(() => codec.decode(encode('{"at":-1}')))).toBe('INVALID_CURSOR');
    expect(refusal(() => codec.decode(encode('{"at":1,"extra":true}')))).toBe('INVALID_CURSOR');
  });

  it('serves the search and session listings alike', () => {
    expect(decodeSearchCursor(encodeSearchCursor(50))).toBe(50);
    expect(refusal(() => decodeSearchCursor(encodeSearchCursor(0)))).toBe('INVALID_CURSOR');
    const page = { updatedAt: new Date('2026-06-16T09:00:00.000Z'), sessionKey: 'agent:main:telegram:dm:1' };
    expect(decodeSessionsCursor(encodeSessionsCursor(page))).toEqual(page);
    expect(refusal(() => decodeSessionsCursor(encodeSessionsCursor({ ...page, sessionKey: 'a\u0000b' })))).toBe('INVALID_CURSOR');
  });
});
