// The EventStore port with meters around it: appends by category and event type, conflicts, errors, append latency.
import { performance } from 'node:perf_hooks';
import { isConnectionError } from '../database/connectionErrors.js';
import { LedgerError } from '../errors/ledgerError.js';
import type {
  AppendClaim,
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
} from '../events/eventStore.js';
import { AppendClaimTakenError, StreamNotFoundError, WrongExpectedRevisionError } from '../events/eventStoreErrors.js';
import type { Counter, Histogram } from './metricFamilies.js';
import { streamCategoryLabel } from './streamCategoryLabel.js';

type Operation =
  'append' | 'read_stream' | 'read_stream_tails' | 'find_event' | 'read_all' | 'head_position' | 'last_committed_position' | 'count_after' | 'ping';

/** A bounded label for an error: the ledger's own code, `connection` for an unreachable database, else `unexpected`. */
function errorKind(error: unknown): string {
  if (error instanceof LedgerError) return error.code;
  return isConnectionError(error) ? 'connection' : 'unexpected';
}

/** The meters an event store reports to (LedgerMetrics has them). */
export interface EventStoreMeters {
  readonly appendDuration: Histogram<'category'>;
  readonly eventsAppended: Counter<'category' | 'type'>;
  readonly jobFires: Counter;
  readonly jobRuns: Counter<'status'>;
  readonly appendConflicts: Counter<'category'>;
  readonly eventStoreErrors: Counter<'operation' | 'kind'>;
}

export class MeteredEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly metrics: EventStoreMeters,
  ) {}

  get backend(): EventStore['backend'] {
    return this.inner.backend;
  }

  get appendsToStreamsAtomically(): boolean {
    return this.inner.appendsToStreamsAtomically;
  }

  async append(streamName: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    const started = performance.now();
    try {
      const result = await this.inner.append(streamName, events, expectedRevision);
      this.countAppended(streamName, events, started);
      return result;
    } catch (error) {
      this.countRefused(error);
      throw error;
    }
  }

  /** Each stream's part counts as an append of its own, all of the same duration; a condition (no events) is none. */
  async appendToStreams(appends: readonly StreamAppend[], claim?: AppendClaim): Promise<AppendResult[]> {
    const started = performance.now();
    try {
      const results = await this.inner.appendToStreams(appends, claim);
      for (const part of appends) if (part.events.length > 0) this.countAppended(part.streamName, part.events, started);
      return results;
    } catch (error) {
      this.countRefused(error);
      throw error;
    }
  }

  private countAppended(streamName: string, events: readonly NewEvent[], started: number): void {
    const category = streamCategoryLabel(streamName);
    this.metrics.appendDuration.observe({ category }, (performance.now() - started) / 1000);
    for (const event of events) {
      this.metrics.eventsAppended.inc({ category, type: event.type });
      if (event.type === 'JobFired') this.metrics.jobFires.inc({});
      if (event.type === 'JobRunReported') this.metrics.jobRuns.inc({ status: String((event.data as { status?: unknown }).status) });
    }
  }

  private countRefused(error: unknown): void {
    // A conflict is the compare-and-set doing its job (the caller reloads and decides again), not a store failure.
    if (error instanceof WrongExpectedRevisionError) this.metrics.appendConflicts.inc({ category: streamCategoryLabel(error.streamName) });
    // A keyed request's claim found taken (its duplicate holds the key): nothing was tried, nothing failed.
    else if (!(error instanceof AppendClaimTakenError)) this.countError('append', error);
  }

  readStreamTails(tails: readonly StreamTail[]): Promise<Array<RecordedEvent[] | null>> {
    return this.metered('read_stream_tails', () => this.inner.readStreamTails(tails));
  }

  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.metered('read_stream', () => this.inner.readStream(streamName, options));
  }

  findEvent(streamName: string, eventId: string): Promise<RecordedEvent | undefined> {
    return this.metered('find_event', () => this.inner.findEvent(streamName, eventId));
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.metered('read_all', () => this.inner.readAll(options));
  }

  headPosition(): Promise<number> {
    return this.metered('head_position', () => this.inner.headPosition());
  }

  lastCommittedPosition(): Promise<number> {
    return this.metered('last_committed_position', () => this.inner.lastCommittedPosition());
  }

  subscribe(handler: EventHandler, options?: SubscribeOptions): Subscription {
    return this.inner.subscribe(handler, options);
  }

  countAfter(position: number, cap: number): Promise<number> {
    return this.metered('count_after', () => this.inner.countAfter(position, cap));
  }

  onAppended(listener: (appended?: AppendNotice) => void): () => void {
    return this.inner.onAppended(listener);
  }

  ping(): Promise<void> {
    return this.metered('ping', () => this.inner.ping());
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async metered<T>(operation: Operation, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      // A stream that does not exist yet is an answer, not a failure (every new conversation starts with one).
      if (!(error instanceof StreamNotFoundError)) this.countError(operation, error);
      throw error;
    }
  }

  private countError(operation: Operation, error: unknown): void {
    this.metrics.eventStoreErrors.inc({ operation, kind: errorKind(error) });
  }
}
