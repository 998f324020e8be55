// How every adapter reaches the ledger: its client, made from the adapter's options, and calls that fail naming the URL.
import { LedgerClient } from '../client/ledgerClient.js';
import { LedgerNetworkError } from '../client/ledgerClientError.js';
import type { RetryOptions } from '../client/retryPolicy.js';
import { LedgerUnavailableError } from './ledgerUnavailableError.js';

export interface LedgerConnectionOptions {
  /** The ledger's base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Retries of a call that got no answer or a transient error, each with the call's one Idempotency-Key. */
  retry?: Partial<RetryOptions>;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function ledgerClientFor(options: LedgerConnectionOptions): LedgerClient {
  return new LedgerClient({
    baseUrl: options.url,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}

/** The framework's call `operation`, sent to the ledger at `url`: no answer fails it with LedgerUnavailableError. */
export async function callLedger<Result>(url: string, operation: string, send: () => Promise<Result>): Promise<Result> {
  try {
    return await send();
  } catch (error) {
    throw error instanceof LedgerNetworkError ? new LedgerUnavailableError(url, operation, error) : error;
  }
}
