// What an adapter's call fails with when the ledger does not answer: never an empty history instead.

/** The ledger did not answer: what the framework's call fails with, never an empty history. */
export class LedgerUnavailableError extends Error {
  constructor(
    readonly url: string,
    readonly operation: string,
    override readonly cause: unknown,
  ) {
    super(`Session Ledger at ${url} did not answer ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'LedgerUnavailableError';
  }
}
