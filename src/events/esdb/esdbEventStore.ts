// The EventStoreDB adapter of the event-store port, over @eventstore/db-client 6.2.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { BACKWARDS, END, EventStoreDBClient, FORWARDS, excludeSystemEvents, type StreamingRead } from '@eventstore/db-client';
import { ValidationError } from '../../errors/ledgerError.js';
import type {
  AppendNotice,
  AppendResult,
  EventHandler,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamTail,
  SubscribeOptions,
  Subscription,
} from '../eventStore.js';
import {
  commitPositionOf,
  fromEsdbAppendResult,
  fromEsdbResolvedEvent,
  isDeliverableAfter,
  isSystemEvent,
  isWithinToRevision,
  mapEsdbError,
  toEsdbEventData,
  toEsdbExpectedRevision,
  toEsdbReadPosition,
  toEsdbReadRevision,
  type EsdbErrorContext,
} from './esdbMapping.js';
import { StreamNotFoundError } from '../eventStoreErrors.js';
import { withDeadline } from './withDeadline.js';

export interface EsdbEventStoreOptions {
  /** Longest wait for any one call before it fails with EventStoreUnavailableError. */
  deadlineMs?: number;
}

export class EsdbEventStore implements EventStore {
  readonly backend = 'esdb' as const;
  /** The client (6.2) appends to one stream per call; KurrentDB's multi-stream append came later. */
  readonly appendsToStreamsAtomically = false;
  private readonly client: EventStoreDBClient;
  private readonly deadlineMs: number;
  private readonly appended = new EventEmitter();

  /** `connection` is an `esdb://` / `esdb+discover://` connection string or a client the caller owns the settings of. */
  constructor(connection: string | EventStoreDBClient, options: EsdbEventStoreOptions = {}) {
    this.client = typeof connection === 'string' ? clientFor(connection) : connection;
    this.deadlineMs = options.deadlineMs ?? 10_000;
    // One listener per projection runner; no cap to warn about.
    this.appended.setMaxListeners(0);
  }

  async append(streamName: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    // Idempotency by event id is native: the server recognises a retried write with the same event ids
    // and expected revision and answers with the original result instead of storing the events again.
    const result = await this.call(`an append to ${streamName}`, { streamName, expectedRevision }, () =>
      this.client.appendToStream(
        streamName,
        events.map((event) => toEsdbEventData(event, randomUUID)),
        { expectedRevision: toEsdbExpectedRevision(expectedRevision) },
      ),
    );
    const appended = fromEsdbAppendResult(result, streamName, expectedRevision);
    this.appended.emit('append', { streamName, revision: appended.nextExpectedRevision } satisfies AppendNotice);
    return appended;
  }

  appendToStreams(_appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return Promise.reject(new Error('EventStoreDB appends to one stream at a time here: check appendsToStreamsAtomically first'));
  }

  /** One read per stream, side by side: gRPC reads are cheap to open, and there is no multi-stream read. */
  readStreamTails(tails: readonly StreamTail[]): Promise<Array<RecordedEvent[] | null>> {
    return Promise.all(
      tails.map((tail) =>
        this.readStream(tail.streamName, { fromRevision: tail.fromRevision }).catch((error: unknown) => {
          if (error instanceof StreamNotFoundError) return null;
          throw error;
        }),
      ),
    );
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { direction = 'forwards', fromRevision, toRevision, maxCount } = options;
    const events: RecordedEvent[] = [];
    await this.read(
      `a read of ${streamName}`,
      { streamName },
      () =>
        this.client.readStream(streamName, {
          direction: direction === 'backwards' ? BACKWARDS : FORWARDS,
          fromRevision: toEsdbReadRevision(fromRevision, direction),
          ...(maxCount === undefined ? {} : { maxCount }),
        }),
      (resolved) => {
        const event = fromEsdbResolvedEvent(resolved);
        if (!isWithinToRevision(event.revision, toRevision, direction)) return false;
        events.push(event);
        return true;
      },
    );
    return events;
  }

  /**
   * EventStoreDB has no lookup by event id: the stream is read from its end, where a retried request's own
   * events are, until the id turns up. Only a retry after an interrupted write asks, so the scan is rare.
   */
  async findEvent(streamName: string, eventId: string): Promise<RecordedEvent | undefined> {
    const wanted = eventId.toLowerCase();
    let found: RecordedEvent | undefined;
    try {
      await this.read(
        `a search of ${streamName}`,
        { streamName },
        () => this.client.readStream(streamName, { direction: BACKWARDS, fromRevision: END }),
        (resolved) => {
          const event = fromEsdbResolvedEvent(resolved);
          if (event.id.toLowerCase() === wanted) found = event;
          return found === undefined;
        },
      );
    } catch (error) {
      if (error instanceof StreamNotFoundError) return undefined;
      throw error;
    }
    return found;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const { fromPosition = 0, maxCount } = options;
    const events: RecordedEvent[] = [];
    if (maxCount !== undefined && maxCount <= 0) return events;
    // maxCount is applied here, not by the server: system events and the event at fromPosition itself must not use it up.
    await this.read(
      'a read of $all',
      {},
      () => this.client.readAll({ fromPosition: toEsdbReadPosition(fromPosition) }),
      (resolved) => {
        if (isDeliverableAfter(resolved, fromPosition)) events.push(fromEsdbResolvedEvent(resolved));
        return maxCount === undefined || events.length < maxCount;
      },
    );
    return events;
  }

  /** EventStoreDB orders $all by commit: what is committed is what a subscriber may see. */
  lastCommittedPosition(): Promise<number> {
    return this.headPosition();
  }

  async headPosition(): Promise<number> {
    let head = 0;
    await this.read(
      'a read of the head of $all',
      {},
      () => this.client.readAll({ direction: BACKWARDS, fromPosition: END }),
      (resolved) => {
        if (isSystemEvent(resolved)) return true;
        head = commitPositionOf(resolved);
        return false;
      },
    );
    return head;
  }

  subscribe(handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    const { fromPosition = 0 } = options;
    // No deadline here: a subscription lives on, and a dead server surfaces as a gRPC keepalive error that ends it.
    // batchSize has no counterpart: the gRPC stream's flow control paces the catch-up, one event per handler call.
    const subscription = this.client.subscribeToAll({ fromPosition: toEsdbReadPosition(fromPosition), filter: excludeSystemEvents() });
    let stopping = false;
    const delivery = (async () => {
      try {
        for await (const resolved of subscription) {
          if (stopping) return;
          if (isDeliverableAfter(resolved, fromPosition)) await handler(fromEsdbResolvedEvent(resolved));
        }
      } catch {
        // A handler or server error ends delivery, and stop() may make the iterator throw: done reports the end, not the cause.
      }
      if (!stopping) await subscription.unsubscribe().catch(() => undefined);
    })();

    let stopped: Promise<void> | undefined;
    const stop = async (): Promise<void> => {
      stopping = true;
      await withDeadline(subscription.unsubscribe(), this.deadlineMs, 'an unsubscribe').catch(() => undefined);
      // Should the server not confirm the cancel, destroying our end still releases the loop.
      subscription.destroy();
      await delivery;
    };
    return {
      stop: () => (stopped ??= stop()),
      // Also settles after stop(), as the PostgreSQL adapter's does, so nobody waits on it forever.
      done: delivery,
    };
  }

  async countAfter(position: number, cap: number): Promise<number> {
    let count = 0;
    if (cap <= 0) return count;
    await this.read(
      'a count of $all',
      {},
      () => this.client.readAll({ fromPosition: toEsdbReadPosition(position) }),
      (resolved) => {
        if (isDeliverableAfter(resolved, position)) count += 1;
        return count < cap;
      },
    );
    return count;
  }

  /** Only this process's appends: subscriptions here are pushed by the server, so other writers need no hint. */
  onAppended(listener: (appended?: AppendNotice) => void): () => void {
    this.appended.on('append', listener);
    return () => this.appended.off('append', listener);
  }

  async ping(): Promise<void> {
    await this.read(
      'a ping',
      {},
      () => this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }),
      () => true,
    );
  }

  async close(): Promise<void> {
    await this.call('a close', {}, () => this.client.dispose());
  }

  private async call<T>(operation: string, context: EsdbErrorContext, work: () => Promise<T>, onExpired?: () => unknown): Promise<T> {
    try {
      return await withDeadline(work(), this.deadlineMs, operation, onExpired);
    } catch (error) {
      throw mapEsdbError(error, context);
    }
  }

  /** Feeds `visit` until the read ends or `visit` returns false, all under one deadline. */
  private async read<E>(operation: string, context: EsdbErrorContext, open: () => StreamingRead<E>, visit: (event: E) => boolean): Promise<void> {
    let read: StreamingRead<E> | undefined;
    let drained = false;
    const cancel = () => read?.cancel();
    try {
      await this.call(
        operation,
        context,
        async () => {
          read = open();
          for await (const event of read) if (!visit(event)) return;
          drained = true;
        },
        cancel,
      );
    } finally {
      // Leaving the loop early only detaches our end; the gRPC call stays open until cancelled.
      if (!drained)
        void Promise.resolve()
          .then(cancel)
          .catch(() => undefined);
    }
  }
}

function clientFor(connectionString: string): EventStoreDBClient {
  try {
    return EventStoreDBClient.connectionString(connectionString);
  } catch (error) {
    // The client's parse errors quote only the offending fragment, never the whole string with its credentials.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ValidationError(`invalid EventStoreDB connection string: ${reason}`, undefined, 'INVALID_ESDB_CONNECTION_STRING');
  }
}
