// The event-store port: every backend (PostgreSQL, PGlite, EventStoreDB) implements this.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Metadata recorded with every event; free-form keys beside the well-known ones are kept. */
export interface EventMetadata {
  correlationId?: string;
  causationId?: string;
  actor?: string;
  /** The tenant whose request wrote the event; absent for the default tenant. */
  tenant?: string;
  schemaVersion?: number;
  [key: string]: JsonValue | undefined;
}

/** An event about to be appended. `id` makes the append idempotent: a retry with the same ids is not stored twice. */
export interface NewEvent<Type extends string = string, Data extends JsonObject = JsonObject> {
  id?: string;
  type: Type;
  data: Data;
  metadata?: EventMetadata;
}

/** An event as stored. `revision` counts from 0 within its stream; `position` orders the whole log. */
export interface RecordedEvent<Type extends string = string, Data extends JsonObject = JsonObject> {
  id: string;
  streamName: string;
  revision: number;
  position: number;
  type: Type;
  data: Data;
  metadata: EventMetadata;
  createdAt: Date;
}

/**
 * `no_stream`: the stream must not exist; `stream_exists`: it must exist; `any`: no check;
 * a number: the stream's current revision must be exactly that.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextExpectedRevision: number;
  /** Global position of the last event appended. */
  position: number;
  /** The events were already stored by an earlier append with the same ids (a retry): nothing was written now. */
  alreadyStored?: boolean;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive start revision: lowest for forwards, highest for backwards. */
  fromRevision?: number;
  /** Inclusive end revision (the far end in the reading direction). */
  toRevision?: number;
  maxCount?: number;
}

/** An append this process made: the stream and the revision of its last new event. */
export interface AppendNotice {
  streamName: string;
  revision: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. 0 reads from the start. */
  fromPosition?: number;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Exclusive: deliver events strictly after this position. 0 replays the whole log. */
  fromPosition?: number;
  /** Events per catch-up batch. */
  batchSize?: number;
}

/** Receives events in position order; the next batch is read only once this resolves. */
export type EventHandler = (event: RecordedEvent) => Promise<void> | void;

export interface Subscription {
  /** Stops delivery; resolves once the handler is no longer running. */
  stop(): Promise<void>;
  /** Resolves when the subscription ends by itself with an error (a handler or read that failed). */
  readonly done: Promise<void>;
}

export interface EventStore {
  readonly backend: 'postgres' | 'pglite' | 'esdb';
  append(streamName: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  /** Throws StreamNotFoundError when the stream has no events. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * The event with this id in this stream, or undefined (also when the stream does not exist). How a retried
   * request finds what its first attempt wrote: its events' ids are derived from its idempotency key.
   */
  findEvent(streamName: string, eventId: string): Promise<RecordedEvent | undefined>;
  /** Position of the newest event a subscriber may already see (0 for an empty log). */
  headPosition(): Promise<number>;
  /**
   * Position of the newest event committed so far (0 for an empty log). A reader that has got this far has seen
   * every event committed before the call; it may have to wait for older transactions to end to get there.
   * Wait on this, not on headPosition, before reading a projection for "everything written until now".
   */
  lastCommittedPosition(): Promise<number>;
  subscribe(handler: EventHandler, options?: SubscribeOptions): Subscription;
  /** How many events a subscriber from `position` has yet to see, counting at most `cap`. */
  countAfter(position: number, cap: number): Promise<number>;
  /**
   * Calls `listener` soon after new events may be readable (this process's appends, and other
   * processes' where the backend can tell). A hint to stop waiting, not a delivery: readers poll too.
   * For an append through this store object the listener gets the stream and its new revision, synchronously,
   * before `append` returns; for other processes' appends it gets nothing.
   */
  onAppended(listener: (appended?: AppendNotice) => void): () => void;
  /** Cheap reachability check for `/ready`. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
