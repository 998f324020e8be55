// Errors every event-store backend raises in the same shape, whatever its native error was.
import { ConflictError, NotFoundError, UnavailableError } from '../errors/ledgerError.js';
import type { ExpectedRevision } from './eventStore.js';

/** The stream's revision was not the one the caller expected. `actual` is -1 when the stream does not exist. */
export class WrongExpectedRevisionError extends ConflictError {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: number,
  ) {
    super('WRONG_EXPECTED_REVISION', `stream ${streamName}: expected revision ${String(expected)}, actual ${actual < 0 ? 'no stream' : actual}`, {
      streamName,
      expectedRevision: expected,
      actualRevision: actual,
    });
  }
}

export class StreamNotFoundError extends NotFoundError {
  constructor(readonly streamName: string) {
    super('STREAM_NOT_FOUND', `stream ${streamName} does not exist`, { streamName });
  }
}

/** Some of the event ids were already stored, but not as this exact append: a caller bug, not a retry. */
export class DuplicateEventIdError extends ConflictError {
  constructor(streamName: string, ids: string[]) {
    super('DUPLICATE_EVENT_ID', `events ${ids.join(', ')} are already stored, but not as this append to ${streamName}`, { streamName, eventIds: ids });
  }
}

export class EventStoreUnavailableError extends UnavailableError {
  constructor(message: string, cause?: unknown) {
    super('EVENT_STORE_UNAVAILABLE', message);
    this.cause = cause;
  }
}

/**
 * The row an append depended on (see AppendClaim) was there already: nothing was appended. Not an answer to give:
 * the keyed request that made it goes back to the claim it skipped (another request holds its key).
 */
export class AppendClaimTakenError extends Error {
  constructor() {
    super('the append was not made: its claim was taken already');
    this.name = 'AppendClaimTakenError';
  }
}
