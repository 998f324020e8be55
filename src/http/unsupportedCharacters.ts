// Refuses request text PostgreSQL cannot store (NUL, and UTF-16 halves with no partner) before any handler sees it.
import { ValidationError } from '../errors/ledgerError.js';

// jsonb and text refuse U+0000, and jsonb refuses an unpaired surrogate escape: either would fail the append
// with a database error (a 500) after validation passed, so they are a 400 at the door instead.
const UNSUPPORTED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether PostgreSQL can store (and compare) the text: no NUL, no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  return !UNSUPPORTED.test(text);
}

interface Visit {
  value: object;
  key: string | number;
  parent: Visit | null;
}

function pathOf(visit: Visit | null, last?: string | number): string {
  const keys: string[] = last === undefined ? [] : [String(last)];
  for (let at = visit; at?.parent; at = at.parent) keys.unshift(String(at.key));
  return keys.join('.');
}

/**
 * The path (`messages.0.content`) of the first key or string holding such a character, or null. Iterative: bodies may
 * nest deeply. Strings are tested where they are met and paths built only for the one found, so that a wide array or
 * object allocates nothing per member.
 */
export function findUnsupportedCharacter(value: unknown): string | null {
  if (typeof value === 'string') return UNSUPPORTED.test(value) ? '' : null;
  if (value === null || typeof value !== 'object') return null;
  const pending: Visit[] = [{ value, key: '', parent: null }];
  /** Whether the member holds such a character itself; a container is left for later. */
  const holdsOne = (visit: Visit, key: string | number, child: unknown): boolean => {
    if (typeof child === 'string') return UNSUPPORTED.test(child);
    if (child !== null && typeof child === 'object') pending.push({ value: child, key, parent: visit });
    return false;
  };
  while (pending.length > 0) {
    const visit = pending.pop()!;
    if (Array.isArray(visit.value)) {
      const items: unknown[] = visit.value;
      for (let index = 0; index < items.length; index++) if (holdsOne(visit, index, items[index])) return pathOf(visit, index);
    } else {
      const members = visit.value as Record<string, unknown>;
      for (const key of Object.keys(members)) if (UNSUPPORTED.test(key) || holdsOne(visit, key, members[key])) return pathOf(visit, key);
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
