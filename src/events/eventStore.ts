/** Injection token of the EventStore. */
export const EVENT_STORE = Symbol('EventStore');
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

/** One stream's part of an append to several streams at once (`appendToStreams`). */
export interface StreamAppend {
  streamName: string;
  /**
   * None makes the part a condition: the call appends the other parts only while this stream stands at the expected
   * revision (a decision that rests on another stream's state proves it in the same round trip). Its result is that
   * revision (-1 where it is not a number), at position 0. At least one part of a call carries events.
   */
  events: readonly NewEvent[];
  expectedRevision: ExpectedRevision;
}

/**
 * A row inserted in the same transaction as an append, before it, which the append depends on: when the row's key is
 * taken already, nothing is appended and `AppendClaimTakenError` is thrown. How a keyed request claims its
 * Idempotency-Key with its first append (see IdempotencyStore.claimWithFirstAppend): only where the claim's table is
 * in the event store's database, so only `appendToStreams` of the SQL stores takes one.
 */
export interface AppendClaim {
  /**
   * `INSERT ... ON CONFLICT DO NOTHING RETURNING true AS claimed`, its parameters numbered from `firstParameter`: a row
   * returned is the claim made, none is the key taken.
   */
  insertSql(firstParameter: number): string;
  readonly parameters: readonly unknown[];
  /** The claim was inserted and committed with the call, whatever the append's outcome (a refused expectation too). */
  claimed(): void;
}

/** Where a catch-up read of several streams starts (`readStreamTails`). */
export interface StreamTail {
  streamName: string;
  /** Inclusive: the first revision to read, usually one past the revision the reader already has. */
  fromRevision: number;
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
  /**
   * Whether `appendToStreams` is there: PostgreSQL and PGlite append to several streams in one transaction;
   * EventStoreDB's client here has no multi-stream transaction, so callers append stream by stream instead.
   */
  readonly appendsToStreamsAtomically: boolean;
  /**
   * Appends to several distinct streams in one transaction, each at its own expected revision: all are written or
   * none. A refused expectation throws WrongExpectedRevisionError for that stream (so does a stream another append
   * created while this one ran). A retry of an append already stored whole answers its results marked
   * `alreadyStored`. Results come in the order of `appends`. Throws where `appendsToStreamsAtomically` is false.
   * `claim`: a row inserted in the same transaction, first; the append runs only when it was (see AppendClaim).
   */
  appendToStreams(appends: readonly StreamAppend[], claim?: AppendClaim): Promise<AppendResult[]>;
  /** Throws StreamNotFoundError when the stream has no events. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Several streams' events from the given revisions on, oldest first, in one read where the backend can: how a
   * request catches up the cached states it needs. `null` for a stream that does not exist.
   */
  readStreamTails(tails: readonly StreamTail[]): Promise<Array<RecordedEvent[] | null>>;
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
