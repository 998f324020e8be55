// What an erasure cut short is resumed from: its record's pseudonymous key, a fixed completion id, a key digest.
import { describe, expect, it } from 'vitest';
import { resumedErasureContext } from '../../src/modules/erasure/domain/erasureContext.js';
import { completionEventId, erasedKeyDigest } from '../../src/modules/erasure/erasureRecord.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the erasure journal', () => {
  it("resumes under the record's erasure id and pseudonymous key, looking for that key, keeping pseudonyms already written", () => {
    const context = resumedErasureContext({ erasureId: 'erasure_0011223344556677', tenant: 'acme', streams: [], pseudonymousKey: 'erased:abc' });
    expect(context).toMatchObject({ erasureId: 'erasure_0011223344556677', sessionKey: 'erased:abc', pseudonymousKey: 'erased:abc', tenant: 'acme' });
    expect(context.pseudonym('erased-0123456789abcdef')).toBe('erased-0123456789abcdef');
    expect(context.pseudonym('msg-42')).toMatch(/^erased-[0-9a-f]{16}$/);
    expect(resumedErasureContext({ erasureId: 'e', tenant: null, streams: [] }).tenant).toBeUndefined();
  });

  it('gives each erasure one completion event id, a valid UUID', () => {
    expect(completionEventId('erasure_a')).toMatch(UUID);
    expect(completionEventId('erasure_a')).toBe(completionEventId('erasure_a'));
    expect(completionEventId('erasure_b')).not.toBe(completionEventId('erasure_a'));
  });

  it('digests a key per tenant, never holding the key', () => {
    const digest = erasedKeyDigest('agent:main:telegram:dm:12345', undefined);
    expect(digest).toBe(erasedKeyDigest('agent:main:telegram:dm:12345', undefined));
    expect(digest).not.toBe(erasedKeyDigest('agent:main:telegram:dm:12345', 'acme'));
    expect(digest).not.toBe(erasedKeyDigest('agent:main:telegram:dm:12346', undefined));
    expect(digest).not.toContain('12345');
  });
});
