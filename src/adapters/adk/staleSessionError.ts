// What appending through a session object older than the stored session fails with: ADK's own words for it.

const shown = (epochMs: number) => new Date(epochMs).toISOString().replace('T', ' ').slice(0, 19);

/**
 * ADK's DatabaseSessionService (Python) raises this for a session object whose last_update_time is older than the
 * stored session's: another writer appended since it was read. Nothing was written; read the session again.
 */
export class StaleSessionError extends Error {
  constructor(
    readonly lastUpdateTime: number,
    readonly storedUpdateTime: number,
    /** The ledger's refusal (412 PRECONDITION_FAILED), when it was the ledger that refused. */
    cause?: unknown,
  ) {
    super(
      `The last_update_time provided in the session object ${shown(lastUpdateTime)} is earlier than the update_time in the storage_session ${shown(storedUpdateTime)}. Please check if it is a stale session.`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'StaleSessionError';
  }
}
