// Refuses request bodies nested deeper than JSON_MAX_DEPTH before anything walks them recursively: validation, the
// state fold and the database all recurse over JSON, and a body 5,000 levels deep would overflow the stack (a 500).
import { ValidationError } from '../errors/ledgerError.js';

interface Visit {
  value: object;
  depth: number;
  key: string | number;
  parent: Visit | null;
}

/** The path of the first value deeper than `limit` levels of arrays and objects, or null. Iterative. */
export function findTooDeep(value: unknown, limit: number): string | null {
  if (value === null || typeof value !== 'object') return null;
  // Each visit names its parent rather than carrying its path: a wide object under a long key would copy that key
  // into every child's path. Only arrays and objects get a visit: a million-element array of strings allocates nothing
  // per element, where a visit each cost seconds of garbage collection.
  const pending: Visit[] = [{ value, depth: 0, key: '', parent: null }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    if (visit.depth + 1 > limit) {
      const keys: string[] = [];
      for (let at: Visit | null = visit; at?.parent; at = at.parent) keys.unshift(String(at.key));
      return keys.join('.');
    }
    const depth = visit.depth + 1;
    if (Array.isArray(visit.value)) {
      const items: unknown[] = visit.value;
      for (let index = 0; index < items.length; index++) {
        const child = items[index];
        if (child !== null && typeof child === 'object') pending.push({ value: child, depth, key: index, parent: visit });
      }
    } else {
      const members = visit.value as Record<string, unknown>;
      for (const key of Object.keys(members)) {
        const child = members[key];
        if (child !== null && typeof child === 'object') pending.push({ value: child, depth, key, parent: visit });
      }
    }
  }
  return null;
}

/** After the body parser: a JSON_TOO_DEEP refusal, or null. */
export function limitJsonDepth(body: unknown, limit: number): ValidationError | null {
  const path = findTooDeep(body, limit);
  if (path === null) return null;
  return new ValidationError(
    `the body nests arrays and objects more than ${limit} levels deep${path ? ` at ${path.slice(0, 200)}` : ''}; the limit is JSON_MAX_DEPTH (${limit})`,
    { limit, path: path.slice(0, 1_000) },
    'JSON_TOO_DEEP',
  );
}
