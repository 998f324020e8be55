// The text a message is indexed by: cut to a bound without ever leaving half of a character behind.
import { describe, expect, it } from 'vitest';
import { MAX_INDEXED_CHARS, searchableText } from '../../src/projections/transcriptSearch/searchTerms.js';

describe('searchableText', () => {
  it('drops a surrogate pair the bound would cut in half, so PostgreSQL can store the text', () => {
    const text = searchableText('a'.repeat(MAX_INDEXED_CHARS - 1) + '😀 after');
    expect(text).not.toMatch(/[\ud800-\udbff]$/);
    expect(text).toBe('a'.repeat(MAX_INDEXED_CHARS - 1));
  });

  it('keeps a whole pair that fits', () => {
    const text = searchableText('a'.repeat(MAX_INDEXED_CHARS - 2) + '😀 after');
    expect(text).toBe('a'.repeat(MAX_INDEXED_CHARS - 2) + '😀');
  });
});
