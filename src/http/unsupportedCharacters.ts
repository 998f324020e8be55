// Refuses request text PostgreSQL cannot store (NUL, and UTF-16 halves with no partner) before any handler sees it.
import { ValidationError } from '../errors/ledgerError.js';

// jsonb and text refuse U+0000, and jsonb refuses an unpaired surrogate escape: either would fail the append
// with a database error (a 500) after validation passed, so they are a 400 at the door instead.
const UNSUPPORTED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path (`messages.0.content`) of the first key or string holding such a character, or null. Iterative: bodies may nest deeply. */
export function findUnsupportedCharacter(value: unknown): string | null {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (UNSUPPORTED.test(current)) return path;
    } else if (current !== null && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        const childPath = path ? `${path}.${key}` : key;
        if (UNSUPPORTED.test(key)) return childPath;
        pending.push({ value: child, path: childPath });
      }
    }
  }
  return null;
}

/** After the body parser: checks the parsed body and the query string; an UNSUPPORTED_CHARACTER refusal, or null. */
export function rejectUnsupportedCharacters(body: unknown, query: unknown): ValidationError | null {
  for (const [where, value] of [
    ['body', body],
    ['query', query],
  ] as const) {
    const path = findUnsupportedCharacter(value);
    if (path !== null) {
      return new ValidationError(
        `${where}${path ? `.${path}` : ''} holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored`,
        { in: where, path },
        'UNSUPPORTED_CHARACTER',
      );
    }
  }
  return null;
}
