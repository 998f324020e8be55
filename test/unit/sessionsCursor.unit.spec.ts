// The listing cursor: round-trips (updatedAt, sessionKey) and refuses anything it did not write with INVALID_CURSOR.
import { describe, expect, it } from 'vitest';
import { decodeSessionsCursor, encodeSessionsCursor } from '../../src/modules/sessions/queries/sessionsCursor.js';

describe('sessions listing cursor', () => {
  it('decodes what it encodes', () => {
    const cursor = { updatedAt: new Date('2026-03-01T09:05:30.250Z'), sessionKey: 'agent:main:telegram:dm:a%3Ab' };
    const text = encodeSessionsCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeSessionsCursor(text)).toEqual(cursor);
  });

  it.each([
    ['not base64url', 'abc$%'],
    ['not JSON', Buffer.from('{oops').toString('base64url')],
    ['JSON of the wrong shape', Buffer.from(JSON.stringify({ updatedAt: 'yesterday', sessionKey: 'k' })).toString('base64url')],
    ['an empty key', Buffer.from(JSON.stringify({ updatedAt: '2026-03-01T09:00:00.000Z', sessionKey: '' })).toString('base64url')],
    ['extra fields', Buffer.from(JSON.stringify({ updatedAt: '2026-03-01T09:00:00.000Z', sessionKey: 'k', more: 1 })).toString('base64url')],
    ['a NUL in the key', Buffer.from(JSON.stringify({ updatedAt: '2026-03-01T09:00:00.000Z', sessionKey: 'k\u0000' })).toString('base64url')],
    ['year 0', Buffer.from(JSON.stringify({ updatedAt: '0000-12-31T00:00:00.000Z', sessionKey: 'k' })).toString('base64url')],
  ])('refuses %s with 400 INVALID_CURSOR', (_label, text) => {
    expect(() => decodeSessionsCursor(text)).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR', status: 400 }));
  });
});
