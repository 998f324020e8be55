// Pure translations between the event-store port and @eventstore/db-client 6.2 values and errors.
import {
  ANY,
  CancelledError,
  DeadlineExceededError,
  END,
  NO_STREAM,
  NotLeaderError,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError as EsdbStreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type AppendResult as EsdbAppendResult,
  type CurrentRevision,
  type EventData,
  type ReadPosition,
  type ReadRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { LedgerError } from '../../errors/ledgerError.js';
import type { AppendResult, EventMetadata, ExpectedRevision, JsonObject, NewEvent, RecordedEvent } from '../eventStore.js';
import { EventStoreUnavailableError, StreamNotFoundError, WrongExpectedRevisionError } from '../eventStoreErrors.js';

export type EsdbResolvedEvent = ResolvedEvent | AllStreamResolvedEvent;
export type ReadDirection = 'forwards' | 'backwards';

/** Stands in for a position the server did not report (stream reads on servers older than 22.6). */
export const UNKNOWN_POSITION = -1;
/** The all-ones u64 is how the server says "no position" on the wire. */
const NO_POSITION = 0xffff_ffff_ffff_ffffn;

export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      return BigInt(expected);
  }
}

/** The client's expected revision back in our form; bigints below 0 are the server's legacy ExpectedVersion codes. */
export function fromEsdbExpectedRevision(expected: AppendExpectedRevision): ExpectedRevision {
  if (typeof expected !== 'bigint') return expected;
  if (expected === -1n) return 'no_stream';
  if (expected === -4n) return 'stream_exists';
  return expected < 0n ? 'any' : Number(expected);
}

/** The stream's current revision as our errors carry it: -1 when the stream does not exist. */
export function fromEsdbCurrentRevision(current: CurrentRevision): number {
  // The trailer-based error path turns a missing stream into BigInt(-1) rather than 'no_stream'.
  if (typeof current !== 'bigint' || current < 0n) return -1;
  return Number(current);
}

export function toEsdbEventData(event: NewEvent, newId: () => string): EventData {
  return jsonEvent({ id: event.id ?? newId(), type: event.type, data: event.data, metadata: event.metadata });
}

/**
 * Our positions are exclusive and 0 means "from the start"; ESDB reads from an exact log position, inclusive.
 * Events appended over gRPC are committed implicitly, so an event's prepare position is its commit position.
 */
export function toEsdbReadPosition(position: number): ReadPosition {
  if (position <= 0) return START;
  const at = BigInt(position);
  return { commit: at, prepare: at };
}

export function toEsdbReadRevision(fromRevision: number | undefined, direction: ReadDirection): ReadRevision {
  if (fromRevision === undefined) return direction === 'backwards' ? END : START;
  return BigInt(fromRevision);
}

/** `toRevision` is inclusive and bounds the far end of the read, whichever the direction. */
export function isWithinToRevision(revision: number, toRevision: number | undefined, direction: ReadDirection): boolean {
  if (toRevision === undefined) return true;
  return direction === 'backwards' ? revision >= toRevision : revision <= toRevision;
}

export function fromEsdbAppendResult(result: EsdbAppendResult, streamName: string, expected: ExpectedRevision): AppendResult {
  // Only reached with throwOnAppendFailure=false in the connection string; the client's batch-append path then
  // reports the current revision as BigInt(hasCurrentStreamRevision()), i.e. 1n, so `actual` is unreliable there.
  if (!result.success) throw new WrongExpectedRevisionError(streamName, expected, fromEsdbCurrentRevision(result.nextExpectedRevision));
  return {
    nextExpectedRevision: Number(result.nextExpectedRevision),
    position: result.position ? Number(result.position.commit) : UNKNOWN_POSITION,
  };
}

/** Our `position` is the commit position; stream reads may carry it only on the resolved event, or not at all. */
export function commitPositionOf(resolved: EsdbResolvedEvent): number {
  const commit = knownPosition(resolved.event?.position?.commit) ?? knownPosition(resolved.commitPosition);
  return commit === undefined ? UNKNOWN_POSITION : Number(commit);
}

function knownPosition(position: bigint | undefined): bigint | undefined {
  return position === NO_POSITION ? undefined : position;
}

/** System events ($-types such as $metadata, $-streams such as $stats) never reach the port's readers. */
export function isSystemEvent(resolved: EsdbResolvedEvent): boolean {
  const event = resolved.event;
  return event === undefined || event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** What readAll and subscribe hand out: application events strictly after the caller's position. */
export function isDeliverableAfter(resolved: EsdbResolvedEvent, afterPosition: number): boolean {
  return !isSystemEvent(resolved) && commitPositionOf(resolved) > afterPosition;
}

export function fromEsdbResolvedEvent(resolved: EsdbResolvedEvent): RecordedEvent {
  const event = resolved.event;
  if (event === undefined) throw new Error('EventStoreDB returned a link whose event is gone');
  if (!isJsonObject(event.data)) {
    throw new Error(`event ${event.id} in ${event.streamId} is not a JSON object: this store reads only JSON events`);
  }
  return {
    id: event.id,
    streamName: event.streamId,
    revision: Number(event.revision),
    position: commitPositionOf(resolved),
    type: event.type,
    data: event.data,
    // Events written by other tools may carry binary or no metadata; the port promises an object.
    metadata: isJsonObject(event.metadata) ? (event.metadata as EventMetadata) : {},
    createdAt: event.created,
  };
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

export interface EsdbErrorContext {
  streamName?: string;
  /** The caller's expected revision, reported as given rather than as the client re-encodes it. */
  expectedRevision?: ExpectedRevision;
}

/** The client's errors in our family; anything we do not recognise passes through unchanged. */
export function mapEsdbError(error: unknown, context: EsdbErrorContext = {}): unknown {
  if (error instanceof LedgerError) return error;
  if (error instanceof WrongExpectedVersionError) {
    return new WrongExpectedRevisionError(
      context.streamName ?? error.streamName,
      context.expectedRevision ?? fromEsdbExpectedRevision(error.expectedVersion),
      fromEsdbCurrentRevision(error.actualVersion),
    );
  }
  // A soft-deleted stream reads as not found; a tombstoned one is reported as deleted. Both are "no such stream" here.
  if (error instanceof EsdbStreamNotFoundError || error instanceof StreamDeletedError) {
    return new StreamNotFoundError(context.streamName ?? error.streamName);
  }
  if (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError ||
    error instanceof CancelledError ||
    error instanceof NotLeaderError
  ) {
    return new EventStoreUnavailableError(`EventStoreDB is unavailable: ${error.message}`, error);
  }
  return error;
}
