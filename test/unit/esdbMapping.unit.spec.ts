// Specification of the EventStoreDB mapping: values and errors built by the real client code, no server.
import {
  StreamNotFoundError as EsdbStreamNotFoundError,
  UnavailableError as EsdbUnavailableError,
  WrongExpectedVersionError,
  convertToCommandError,
  type AllStreamResolvedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
// Deep imports of the pinned client (6.2.1): the generated protobuf messages and the converter the client
// applies to every event it reads, so the inputs below are exactly what the client hands the adapter.
import clientEvents from '@eventstore/db-client/dist/utils/convertGrpcEvent.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js';
import { describe, expect, it, vi } from 'vitest';
import { ConflictError } from '../../src/errors/ledgerError.js';
import { EsdbEventStore } from '../../src/events/esdb/esdbEventStore.js';
import {
  UNKNOWN_POSITION,
  commitPositionOf,
  fromEsdbAppendResult,
  fromEsdbCurrentRevision,
  fromEsdbExpectedRevision,
  fromEsdbResolvedEvent,
  isDeliverableAfter,
  isSystemEvent,
  isWithinToRevision,
  mapEsdbError,
  toEsdbEventData,
  toEsdbExpectedRevision,
  toEsdbReadPosition,
  toEsdbReadRevision,
} from '../../src/events/esdb/esdbMapping.js';
import { EventStoreUnavailableError, StreamNotFoundError, WrongExpectedRevisionError } from '../../src/events/eventStoreErrors.js';

const TICKS_PER_MS = 10_000n;

/** A recorded event as the server sends it on the wire, run through the client's own converter. */
function readFromWire(fields: {
  streamName: string;
  id: string;
  revision: bigint;
  position?: bigint;
  type: string;
  contentType?: string;
  createdAt: Date;
  data: string | Uint8Array;
  metadata?: string;
}): ResolvedEvent {
  const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent();
  recorded.setId(new sharedPb.UUID().setString(fields.id));
  recorded.setStreamIdentifier(new sharedPb.StreamIdentifier().setStreamName(Buffer.from(fields.streamName)));
  recorded.setStreamRevision(fields.revision.toString());
  recorded.setCommitPosition((fields.position ?? 0xffff_ffff_ffff_ffffn).toString());
  recorded.setPreparePosition((fields.position ?? 0xffff_ffff_ffff_ffffn).toString());
  recorded.getMetadataMap().set('type', fields.type);
  recorded.getMetadataMap().set('content-type', fields.contentType ?? 'application/json');
  recorded.getMetadataMap().set('created', (BigInt(fields.createdAt.getTime()) * TICKS_PER_MS).toString());
  recorded.setData(typeof fields.data === 'string' ? Buffer.from(fields.data) : fields.data);
  if (fields.metadata !== undefined) recorded.setCustomMetadata(Buffer.from(fields.metadata));
  const readEvent = new streamsPb.ReadResp.ReadEvent().setEvent(recorded);
  if (fields.position !== undefined) readEvent.setCommitPosition(fields.position.toString());
  else readEvent.setNoPosition(new sharedPb.Empty());
  return clientEvents.convertGrpcEvent(readEvent);
}

/** The details the server attaches to a failed batch append, which the client turns into its error. */
function wrongExpectedVersionDetails(current: bigint | 'no_stream', expected: bigint | 'any' | 'no_stream' | 'stream_exists') {
  const details = new sharedPb.WrongExpectedVersion();
  if (current === 'no_stream') details.setCurrentNoStream(new emptyPb.Empty());
  else details.setCurrentStreamRevision(current.toString());
  if (expected === 'any') details.setExpectedAny(new emptyPb.Empty());
  else if (expected === 'no_stream') details.setExpectedNoStream(new emptyPb.Empty());
  else if (expected === 'stream_exists') details.setExpectedStreamExists(new emptyPb.Empty());
  else details.setExpectedStreamPosition(expected.toString());
  return details;
}

/** A failure as gRPC delivers it: status code plus trailers, before the client classifies it. */
function serviceError(code: number, details: string, trailers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: { getMap: () => trailers } });
}

describe('expected revision to EventStoreDB', () => {
  it('maps every form of ExpectedRevision', () => {
    expect(toEsdbExpectedRevision('no_stream')).toBe('no_stream');
    expect(toEsdbExpectedRevision('stream_exists')).toBe('stream_exists');
    expect(toEsdbExpectedRevision('any')).toBe('any');
    expect(toEsdbExpectedRevision(0)).toBe(0n);
    expect(toEsdbExpectedRevision(41)).toBe(41n);
  });

  it('reads the client forms back, including the server legacy codes for no stream, any and stream exists', () => {
    expect(fromEsdbExpectedRevision('no_stream')).toBe('no_stream');
    expect(fromEsdbExpectedRevision('stream_exists')).toBe('stream_exists');
    expect(fromEsdbExpectedRevision('any')).toBe('any');
    expect(fromEsdbExpectedRevision(7n)).toBe(7);
    expect(fromEsdbExpectedRevision(-1n)).toBe('no_stream');
    expect(fromEsdbExpectedRevision(-2n)).toBe('any');
    expect(fromEsdbExpectedRevision(-4n)).toBe('stream_exists');
  });

  it('reports a missing stream as revision -1, however the client says it', () => {
    expect(fromEsdbCurrentRevision('no_stream')).toBe(-1);
    expect(fromEsdbCurrentRevision(-1n)).toBe(-1);
    expect(fromEsdbCurrentRevision(0n)).toBe(0);
    expect(fromEsdbCurrentRevision(12n)).toBe(12);
  });
});

describe('errors from the client', () => {
  it('maps a batch-append WrongExpectedVersionError to ours with the caller expected revision and the actual one', () => {
    const error = WrongExpectedVersionError.fromWrongExpectedVersion(wrongExpectedVersionDetails(5n, 3n), 'orders-1');
    const mapped = mapEsdbError(error, { streamName: 'orders-1', expectedRevision: 3 });
    expect(mapped).toBeInstanceOf(WrongExpectedRevisionError);
    expect(mapped).toBeInstanceOf(ConflictError);
    expect(mapped).toMatchObject({ streamName: 'orders-1', expected: 3, actual: 5, status: 409, code: 'WRONG_EXPECTED_REVISION' });
  });

  it('reports actual -1 when the stream the caller expected to exist does not', () => {
    const error = WrongExpectedVersionError.fromWrongExpectedVersion(wrongExpectedVersionDetails('no_stream', 'stream_exists'), 'orders-2');
    expect(error.actualVersion).toBe('no_stream');
    expect(mapEsdbError(error, { streamName: 'orders-2', expectedRevision: 'stream_exists' })).toMatchObject({
      expected: 'stream_exists',
      actual: -1,
    });
  });

  it('maps the unary-append form of the error (no_stream expected, stream at 4)', () => {
    const error = new WrongExpectedVersionError(undefined, { streamName: 'orders-3', expected: 'no_stream', current: 4n });
    expect(mapEsdbError(error, { streamName: 'orders-3', expectedRevision: 'no_stream' })).toMatchObject({
      expected: 'no_stream',
      actual: 4,
    });
  });

  it('maps the trailer form, where the client carries a missing stream as BigInt(-1), and falls back to its own values', () => {
    const error = convertToCommandError(
      serviceError(9, 'wrong expected version', {
        exception: 'wrong-expected-version',
        'stream-name': 'orders-4',
        'expected-version': '2',
        'actual-version': '-1',
      }),
    );
    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    expect(mapEsdbError(error)).toMatchObject({ streamName: 'orders-4', expected: 2, actual: -1 });
  });

  it('maps StreamNotFoundError, named the way a read reports it (as bytes), to ours', () => {
    const error = new EsdbStreamNotFoundError(undefined, new TextEncoder().encode('orders-5'));
    const mapped = mapEsdbError(error);
    expect(mapped).toBeInstanceOf(StreamNotFoundError);
    expect(mapped).toMatchObject({ streamName: 'orders-5', status: 404, code: 'STREAM_NOT_FOUND' });
  });

  it('maps an unavailable server (gRPC status 14) to EventStoreUnavailableError, keeping the cause', () => {
    const error = convertToCommandError(serviceError(14, 'UNAVAILABLE: No connection established'));
    expect(error).toBeInstanceOf(EsdbUnavailableError);
    const mapped = mapEsdbError(error);
    expect(mapped).toBeInstanceOf(EventStoreUnavailableError);
    expect(mapped).toMatchObject({ status: 503, code: 'EVENT_STORE_UNAVAILABLE', cause: error });
  });

  it('maps an exceeded gRPC deadline (status 4) to EventStoreUnavailableError', () => {
    expect(mapEsdbError(convertToCommandError(serviceError(4, 'DEADLINE_EXCEEDED')))).toBeInstanceOf(EventStoreUnavailableError);
  });

  it('passes our own errors and unknown ones through untouched', () => {
    const ours = new StreamNotFoundError('s');
    const unknown = new RangeError('boom');
    expect(mapEsdbError(ours)).toBe(ours);
    expect(mapEsdbError(unknown)).toBe(unknown);
  });
});

describe('append values', () => {
  it('keeps a given event id and draws a new one otherwise; data and metadata go as JSON', () => {
    const given = toEsdbEventData(
      { id: 'a1b2c3d4-0000-4000-8000-000000000001', type: 'SessionOpened', data: { n: 1 }, metadata: { actor: 'me' } },
      () => 'unused',
    );
    expect(given).toEqual({
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      contentType: 'application/json',
      type: 'SessionOpened',
      data: { n: 1 },
      metadata: { actor: 'me' },
    });
    const drawn = toEsdbEventData({ type: 'SessionClosed', data: {} }, () => 'a1b2c3d4-0000-4000-8000-000000000002');
    expect(drawn).toMatchObject({ id: 'a1b2c3d4-0000-4000-8000-000000000002', contentType: 'application/json', metadata: undefined });
  });

  it('turns the write result bigints into numbers, position being the commit position', () => {
    const result = fromEsdbAppendResult({ success: true, nextExpectedRevision: 4n, position: { commit: 4_294_967_396n, prepare: 4_294_967_396n } }, 's', 3);
    expect(result).toEqual({ nextExpectedRevision: 4, position: 4_294_967_396 });
  });

  it('raises the conflict itself when the client was told not to throw on append failure', () => {
    expect(() => fromEsdbAppendResult({ success: false, nextExpectedRevision: 6n }, 's', 2)).toThrow(WrongExpectedRevisionError);
  });
});

describe('read positions and revisions', () => {
  it('reads $all from the start for position 0 and from the exact log position otherwise', () => {
    expect(toEsdbReadPosition(0)).toBe('start');
    expect(toEsdbReadPosition(1_234_567)).toEqual({ commit: 1_234_567n, prepare: 1_234_567n });
  });

  it('starts a stream read at the near end unless a revision is given', () => {
    expect(toEsdbReadRevision(undefined, 'forwards')).toBe('start');
    expect(toEsdbReadRevision(undefined, 'backwards')).toBe('end');
    expect(toEsdbReadRevision(7, 'backwards')).toBe(7n);
  });

  it('bounds the far end inclusively in either direction', () => {
    expect(isWithinToRevision(3, 3, 'forwards')).toBe(true);
    expect(isWithinToRevision(4, 3, 'forwards')).toBe(false);
    expect(isWithinToRevision(3, 3, 'backwards')).toBe(true);
    expect(isWithinToRevision(2, 3, 'backwards')).toBe(false);
    expect(isWithinToRevision(99, undefined, 'forwards')).toBe(true);
  });
});

describe('recorded events from the client', () => {
  const createdAt = new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678));

  it('maps a resolved event with bigint revision and position to ours', () => {
    const resolved = readFromWire({
      streamName: 'session-42',
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      revision: 3n,
      position: 9_007_199_254_740_000n,
      type: 'SessionBound',
      createdAt,
      data: '{"sessionId":"42","tags":["a"]}',
      metadata: '{"correlationId":"c-1","schemaVersion":2}',
    });
    expect(fromEsdbResolvedEvent(resolved)).toEqual({
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      streamName: 'session-42',
      revision: 3,
      position: 9_007_199_254_740_000,
      type: 'SessionBound',
      data: { sessionId: '42', tags: ['a'] },
      metadata: { correlationId: 'c-1', schemaVersion: 2 },
      createdAt,
    });
  });

  it('defaults missing metadata to {} and reports a position the server did not send as unknown', () => {
    const resolved = readFromWire({ streamName: 's', id: '0f8fad5b-d9cb-469f-a165-70867728950f', revision: 0n, type: 'T', createdAt, data: '{}' });
    expect(fromEsdbResolvedEvent(resolved)).toMatchObject({ metadata: {}, position: UNKNOWN_POSITION });
  });

  it('takes the position from the resolved event when the record itself has none', () => {
    const resolved: ResolvedEvent = {
      ...readFromWire({ streamName: 's', id: '0f8fad5b-d9cb-469f-a165-70867728950f', revision: 0n, type: 'T', createdAt, data: '{}' }),
      commitPosition: 512n,
    };
    expect(commitPositionOf(resolved)).toBe(512);
  });

  it('refuses events that are not JSON objects', () => {
    const binary = readFromWire({
      streamName: 's',
      id: '0f8fad5b-d9cb-469f-a165-708677289510',
      revision: 0n,
      type: 'T',
      contentType: 'application/octet-stream',
      createdAt,
      data: new Uint8Array([1, 2, 3]),
    });
    expect(() => fromEsdbResolvedEvent(binary)).toThrow(/not a JSON object/);
  });
});

describe('system events', () => {
  const createdAt = new Date(0);
  const at = (streamName: string, type: string, position: bigint): AllStreamResolvedEvent =>
    readFromWire({ streamName, id: '0f8fad5b-d9cb-469f-a165-708677289511', revision: 0n, position, type, createdAt, data: '{}' }) as AllStreamResolvedEvent;

  it('treats $-types and $-streams as system events', () => {
    expect(isSystemEvent(at('$settings', '$metadata', 100n))).toBe(true);
    expect(isSystemEvent(at('orders-1', '$metadata', 100n))).toBe(true);
    expect(isSystemEvent(at('$stats-127.0.0.1:2113', 'StatsCollected', 100n))).toBe(true);
    expect(isSystemEvent(at('orders-1', 'OrderPlaced', 100n))).toBe(false);
    expect(isSystemEvent({})).toBe(true);
  });

  it('delivers only application events strictly after the given position', () => {
    const events = [at('$users', '$User', 100n), at('orders-1', 'OrderPlaced', 200n), at('orders-1', 'OrderPaid', 300n), at('orders-2', '$>', 400n)];
    expect(events.filter((event) => isDeliverableAfter(event, 200)).map((event) => event.event?.type)).toEqual(['OrderPaid']);
    expect(events.filter((event) => isDeliverableAfter(event, 0)).map((event) => event.event?.type)).toEqual(['OrderPlaced', 'OrderPaid']);
  });
});

describe('EsdbEventStore against nothing listening (the real client error path)', () => {
  it('rejects ping with EventStoreUnavailableError when the server refuses the connection, without waiting for its deadline', async () => {
    // A deadline far past the test's own timeout: the test can only pass if the refusal comes from the client at once.
    const store = new EsdbEventStore('esdb://127.0.0.1:1?tls=false', { deadlineMs: 600_000 });
    try {
      const error: unknown = await store.ping().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(EventStoreUnavailableError);
      expect(error).toMatchObject({ message: expect.stringMatching(/unavailable/i) });
    } finally {
      await store.close();
    }
  });

  it('ends a subscription by itself when the client fails, without calling the handler', async () => {
    const store = new EsdbEventStore('esdb://127.0.0.1:1?tls=false', { deadlineMs: 300 });
    const handler = vi.fn();
    try {
      const subscription = store.subscribe(handler);
      const ended = await Promise.race([subscription.done.then(() => 'ended'), new Promise((resolve) => setTimeout(resolve, 2_000, 'still running'))]);
      expect(ended).toBe('ended');
      expect(handler).not.toHaveBeenCalled();
      await subscription.stop();
    } finally {
      await store.close();
    }
  });
});
