// When the client sends a request again, and how long it waits first.

export interface RetryOptions {
  /** Tries per call, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No new try starts this long after the first (a service restarting takes a few seconds). */
  maxElapsedMs: number;
}

export const defaultRetryOptions: RetryOptions = { maxAttempts: 8, baseDelayMs: 100, maxDelayMs: 2_000, maxElapsedMs: 30_000 };

/**
 * 409 is usually a decision, not an accident: ALREADY_FIRED (the slot fired elsewhere), TURN_IN_FLIGHT,
 * RUNTIME_BUSY, SESSION_ENDED, JOB_EXISTS, QUEUE_FULL (429) and the like answer the same however often they
 * are asked, and the caller must act on them. Only a lost compare-and-set, which wrote nothing, is worth
 * repeating: the service already retried it on fresh state, and one more round usually wins. So is a key still
 * held by an earlier try of the same call (IDEMPOTENCY_KEY_IN_USE): the repeat waits for and replays its answer.
 */
const RETRYABLE_CONFLICTS = new Set(['WRONG_EXPECTED_REVISION', 'IDEMPOTENCY_KEY_IN_USE']);
/** A read model still catching up, or a store briefly away: nothing was written. */
const RETRYABLE_UNAVAILABLE = new Set(['PROJECTION_NOT_CAUGHT_UP', 'DATABASE_UNAVAILABLE', 'EVENT_STORE_UNAVAILABLE']);

export type Failure = { kind: 'answer'; status: number; code: string } | { kind: 'network'; connected: boolean };

/** Whether to try `failure` again, given whether the operation may be repeated after a lost answer. */
export function shouldRetry(failure: Failure, safeToRepeat: boolean): boolean {
  if (failure.kind === 'network') return !failure.connected || safeToRepeat;
  if (failure.status === 409) return RETRYABLE_CONFLICTS.has(failure.code);
  if (failure.status === 503) return failure.code === 'PROJECTION_NOT_CAUGHT_UP' || (safeToRepeat && RETRYABLE_UNAVAILABLE.has(failure.code));
  return false;
}

/** Exponential backoff, half of it random: retries of many clients spread out instead of arriving together. */
export function retryDelayMs(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

// undici reports a refused or unreachable connection through `cause.code`: the request never left this process.
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export function neverConnected(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && NOT_CONNECTED.has(code);
}
