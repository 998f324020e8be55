// The client's retry decisions: which failures are worth another try, for which operations, and how long to wait.
import { describe, expect, it } from 'vitest';
import { defaultRetryOptions, type Failure, neverConnected, retryDelayMs, shouldRetry } from '../../src/client/retryPolicy.js';

const answer = (status: number, code: string): Failure => ({ kind: 'answer', status, code });

describe('client retry policy', () => {
  it('retries a lost compare-and-set for any operation: nothing was written', () => {
    expect(shouldRetry(answer(409, 'WRONG_EXPECTED_REVISION'), false)).toBe(true);
    expect(shouldRetry(answer(409, 'WRONG_EXPECTED_REVISION'), true)).toBe(true);
  });

  it('never retries the 409s and 429s that are decisions', () => {
    for (const code of ['ALREADY_FIRED', 'TURN_IN_FLIGHT', 'RUNTIME_BUSY', 'SESSION_ENDED', 'JOB_EXISTS', 'CONVERSATION_SUSPENDED', 'DUPLICATE_EVENT_ID']) {
      expect([code, shouldRetry(answer(409, code), true)]).toEqual([code, false]);
    }
    expect(shouldRetry(answer(429, 'QUEUE_FULL'), true)).toBe(false);
    expect(shouldRetry(answer(400, 'VALIDATION_FAILED'), true)).toBe(false);
    expect(shouldRetry(answer(500, 'INTERNAL_ERROR'), true)).toBe(false);
  });

  it('retries an unavailable store only where repeating is safe, a lagging read model always', () => {
    expect(shouldRetry(answer(503, 'PROJECTION_NOT_CAUGHT_UP'), false)).toBe(true);
    expect(shouldRetry(answer(503, 'DATABASE_UNAVAILABLE'), true)).toBe(true);
    expect(shouldRetry(answer(503, 'DATABASE_UNAVAILABLE'), false)).toBe(false);
    expect(shouldRetry(answer(503, 'EVENT_STORE_UNAVAILABLE'), false)).toBe(false);
  });

  it('retries a request that never left for anything, a lost answer only where repeating is safe', () => {
    expect(shouldRetry({ kind: 'network', connected: false }, false)).toBe(true);
    expect(shouldRetry({ kind: 'network', connected: true }, false)).toBe(false);
    expect(shouldRetry({ kind: 'network', connected: true }, true)).toBe(true);
    expect(neverConnected(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }))).toBe(true);
    expect(neverConnected(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }))).toBe(false);
    expect(neverConnected(new Error('aborted'))).toBe(false);
  });

  it('backs off exponentially up to the cap, half of each delay random', () => {
    const options = { ...defaultRetryOptions, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, options, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, options, () => 1))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });
});
