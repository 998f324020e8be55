// The event-store port with every read upcast to the current schema: folds, projections, history and replay see one shape.
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
} from '../eventStore.js';
import { type EventSchemaHistory, eventSchemaHistory } from './eventSchemaVersions.js';
import { FIRST_SCHEMA_VERSION } from './eventUpcaster.js';

/** A stored event in the current shape of its type. Up-to-date events are returned as they are. */
export function upcastEvent(event: RecordedEvent, history: EventSchemaHistory = eventSchemaHistory): RecordedEvent {
  const stored = event.metadata?.schemaVersion;
  const storedVersion = typeof stored === 'number' && Number.isInteger(stored) && stored >= FIRST_SCHEMA_VERSION ? stored : FIRST_SCHEMA_VERSION;
  const steps = history.stepsFrom(event.type, storedVersion);
  if (steps.length === 0) return event;
  const data = steps.reduce((current, step) => step.upcast(current), event.data);
  // The audit still tells what the log holds: the version the bytes were written in.
  return { ...event, data, metadata: { ...event.metadata, schemaVersion: storedVersion + steps.length, storedSchemaVersion: storedVersion } };
}

/**
 * Wraps the store every reader gets (composed in infrastructure.ts). Appends pass through untouched: writers
 * stamp the current version (StreamStateStore), and a test or a migration may append an old shape on purpose.
 */
export class UpcastingEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly history: EventSchemaHistory = eventSchemaHistory,
  ) {}

  get backend(): EventStore['backend'] {
    return this.inner.backend;
  }

  append(streamName: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(streamName, events, expectedRevision);
  }

  get appendsToStreamsAtomically(): boolean {
    return this.inner.appendsToStreamsAtomically;
  }

  appendToStreams(appends: readonly StreamAppend[], claim?: AppendClaim): Promise<AppendResult[]> {
    return this.inner.appendToStreams(appends, claim);
  }

  async readStreamTails(tails: readonly StreamTail[]): Promise<Array<RecordedEvent[] | null>> {
    return (await this.inner.readStreamTails(tails)).map((events) => events && events.map((event) => upcastEvent(event, this.history)));
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return (await this.inner.readStream(streamName, options)).map((event) => upcastEvent(event, this.history));
  }

  async findEvent(streamName: string, eventId: string): Promise<RecordedEvent | undefined> {
    const event = await this.inner.findEvent(streamName, eventId);
    return event && upcastEvent(event, this.history);
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return (await this.inner.readAll(options)).map((event) => upcastEvent(event, this.history));
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  lastCommittedPosition(): Promise<number> {
    return this.inner.lastCommittedPosition();
  }

  subscribe(handler: EventHandler, options?: SubscribeOptions): Subscription {
    return this.inner.subscribe((event) => handler(upcastEvent(event, this.history)), options);
  }

  countAfter(position: number, cap: number): Promise<number> {
    return this.inner.countAfter(position, cap);
  }

  onAppended(listener: (appended?: AppendNotice) => void): () => void {
    return this.inner.onAppended(listener);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
