// The Idempotency-Key header of a write, and the fingerprint that tells a retry of a request from another request.
import { createHash } from 'node:crypto';
import type { Request } from '../http/httpTypes.js';
import { ValidationError } from '../errors/ledgerError.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Every method that may write. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** The request's key, undefined when it sent none; a malformed one is refused before anything runs. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!PRINTABLE_ASCII.test(key)) {
    throw new ValidationError('Idempotency-Key must be 1 to 255 printable ASCII characters', { length: key.length }, 'INVALID_IDEMPOTENCY_KEY');
  }
  return key;
}

/**
 * Method, the route the router matched with its decoded parameters, the query, and the body as JSON with object keys
 * sorted: another spelling of the path (case, percent-encoding, absolute form), whitespace and key order do not make
 * another request.
 */
export function requestFingerprint(request: Request): string {
  const route = `${request.routeOptions.url ?? ''} ${stableJson(request.params ?? {})} ${stableJson(request.query ?? {})}`;
  const body = request.body === undefined ? '' : stableJson(request.body);
  return createHash('sha256').update(`${request.method}\n${route}\n${body}`).digest('hex');
}

/** JSON with sorted keys, built by hand so that a `__proto__` member stays data. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
