// Loads a stream's folded state (cache, snapshot, then catch-up from the store) and appends decided events at the expected revision.
import type { Clock } from '../clock.js';
import type { Decider } from './decider.js';
import type { AppendResult, EventMetadata, EventStore, JsonObject, NewEvent, RecordedEvent } from './eventStore.js';
import { AppendClaimTakenError, StreamNotFoundError, WrongExpectedRevisionError } from './eventStoreErrors.js';
import { currentIdempotentWrite, type IdempotentWrite } from './idempotentWrite.js';
import { currentWriteFence, type WriteFence } from './writeFence.js';
import type { CachedState, LoadKind, StateCache } from './boundedStateCache.js';
import { type SnapshotStore, snapshotVersionOf } from './snapshotStore.js';
import { eventSchemaHistory } from './upcasting/eventSchemaVersions.js';

export interface LoadedState<State> {
  state: State;
  revision: number;
  /** Global position of the stream's last event; 0 for an empty stream. */
  position: number;
  source: LoadKind;
}

/** A state as it was at a point of the stream's history. */
export interface HistoricState<State> extends LoadedState<State> {
  /** When the store recorded the last event folded in; null when nothing was. */
  lastEventAt: Date | null;
}

/** Up to and including this revision, or every event recorded at or before this time. */
export type HistoryBound = { revision: number } | { at: Date };

export interface CommandResult<State, Event> {
  state: State;
  revision: number;
  events: Event[];
  /** Global position of the last event written, or of the stream's last event when the decision wrote nothing. */
  position: number;
  /** Whether the decision appended anything. */
  written: boolean;
  source: LoadKind;
  /**
   * The answer of an earlier attempt of the same keyed request, which wrote these events (see IdempotentWrite): this
   * request decided nothing, and the states it read through DecisionReads are not proven by any append of its own.
   */
  earlier?: true;
}

/**
 * The streams a decision opens (a conversation's binding opens its new session): new streams, appended to with
 * no_stream, their first events decided on the decider's initial state. Where the store appends to several streams
 * in one transaction they are written with the decision itself; elsewhere nothing is opened here and the caller
 * writes them after it, as it would without this.
 */
export interface StreamOpenings<Event, OpenedState, OpenedCommand, OpenedEvent extends { type: string; data: object }> {
  decider: Decider<OpenedState, OpenedCommand, OpenedEvent>;
  streamsOpenedBy(events: readonly Event[]): Array<{ streamName: string; command: OpenedCommand }>;
}

/** A stream opened in the same append as the decision that opened it, as it stands right after. */
export interface OpenedStream<State, Event> {
  streamName: string;
  state: State;
  revision: number;
  position: number;
  events: Event[];
}

/**
 * Other streams' states a decision rests on, given to a command function beside its own stream's state. Where the
 * store appends to several streams in one transaction, a state cached here is used without a read and the append
 * carries the revision it stands at as a condition: a stream that moved meanwhile refuses the append, and the
 * decision is made again on its state read anew. A decision that writes nothing or refuses stands only once a read
 * agrees with each cached state it used. Elsewhere each is loaded as `load` would.
 */
export interface DecisionReads {
  load<State, Command, Event extends { type: string; data: object }>(streamName: string, decider: Decider<State, Command, Event>): Promise<LoadedState<State>>;
}

/** A command, or a function deciding the command on the stream's state and the other states it reads. */
export type CommandOrDecision<State, Command> = Command | ((state: State, reads: DecisionReads) => Command | Promise<Command>);

/** A stream a decision read (DecisionReads): the revision the decision saw, and whether it came from the cache. */
interface DecisionCondition {
  revision: number;
  fromCache: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- only the revision matters here
  decider: Decider<any, any, any>;
}

/** A stream and the decider that folds it, for loadMany. */
export interface StreamOf<State> {
  streamName: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- only the state type matters here
  decider: Decider<State, any, any>;
}

type LoadedStates<Streams extends readonly StreamOf<unknown>[]> = {
  [Index in keyof Streams]: LoadedState<Streams[Index] extends StreamOf<infer State> ? State : never>;
};

export interface StreamStateStoreOptions {
  /** Where snapshots of snapshottable deciders' states go; without it every cold load replays the whole stream. */
  snapshots?: SnapshotStore;
  /** A snapshot is written once a stream is this many events past its last one; 0 turns snapshots off. */
  snapshotEvery?: number;
  /** A failed snapshot read or write only makes a load slower, never a command fail: it is reported here. */
  onSnapshotError?: (error: unknown, streamName: string) => void;
  /**
   * No other process appends to the log (the embedded PGlite database, which no other process can open). A load
   * then serves a cached state without reading the stream's tail: the store's append notices drop the cached
   * state of a stream appended to in this process by anything else than this store (tests, importers).
   */
  soleWriter?: boolean;
}

const MAX_CONFLICT_RETRIES = 20;

/** Events read at a time while gathering an earlier attempt's append. */
const EARLIER_APPEND_PAGE = 64;

/**
 * A deep copy with object keys sorted. The store may hand event data back with its keys reordered (jsonb
 * does), so every fold reads events through this: a state folded from events just decided, from events read
 * back, or from a snapshot serialises identically.
 */
export function canonicalJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonicalJson) as T;
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const child = (value as Record<string, unknown>)[key];
      if (child === undefined) continue;
      // Assigning `__proto__` would set the copy's prototype and drop the member: it is data here, so define it.
      if (key === '__proto__') Object.defineProperty(sorted, key, { value: canonicalJson(child), enumerable: true, writable: true, configurable: true });
      else sorted[key] = canonicalJson(child);
    }
    return sorted as T;
  }
  return value;
}

function foldEvent<State, Event>(decider: { evolve(state: State, event: Event): State }, state: State, event: { type: string; data: object }): State {
  return decider.evolve(state, { type: event.type, data: canonicalJson(event.data) } as Event);
}

/** A state this process folded and the stream position it stands at. */
interface FoldedPoint<State> {
  state: State;
  revision: number;
  position: number;
}

/**
 * A decider whose past states commands ask for again (a session's checkpoints, which a rollback restores) names
 * them: StreamStateStore keeps the newest few it folded, and loadAt starts from one of them.
 */
export interface RestorePoints<State> {
  isRestorePoint(state: State): boolean;
}

function restorePointsOf(decider: object): RestorePoints<unknown> | undefined {
  return typeof (decider as Partial<RestorePoints<unknown>>).isRestorePoint === 'function' ? (decider as RestorePoints<unknown>) : undefined;
}

/** Where a state this process folded stands, and the newest restore points folded before it in that stream, newest first. */
interface RecentStates {
  revision: number;
  position: number;
  restorePoints: FoldedPoint<unknown>[];
}

/** Enough for the newest checkpoint whether or not the current state is one; older ones come from a snapshot or a replay. */
const RESTORE_POINTS = 2;

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

interface Tracked<State> {
  loaded: LoadedState<State>;
  /** Revision of the stream's newest snapshot (-1: none). */
  snapshotRevision: number;
}

/** The request's Idempotency-Key and which of its appends to the stream this is (see IdempotentWrite). */
interface KeyedAppend {
  keyed: IdempotentWrite;
  number: number;
}

/** What the attempts of one decision carry from one to the next. */
interface Attempts<State> {
  /** The stream read anew because the attempt before found its cached state behind: the next decides on it. */
  caughtUp: Tracked<State> | undefined;
  /** The append before failed on a condition only (another stream the decision read): this stream's cached state still stands. */
  ownStillCached: boolean;
  /** Whether the streams the decision opens go in its append; off once one turned out to exist (the caller opens them). */
  opening: boolean;
}

interface AttemptStart<State> {
  tracked: Tracked<State>;
  /** Decided on without a read of the stream: a refusal or a decision to write nothing stands only once a read agrees. */
  fromCache: boolean;
}

/** The events decided, and the other streams the decision read (conditions of its append). */
interface Decision<Event> {
  events: Event[];
  conditions: Map<string, DecisionCondition>;
}

/** Decide again: the state an attempt decided on, or one it read, was behind. */
const AGAIN = Symbol('decide again');

interface Start<State> {
  state: State;
  revision: number;
  position: number;
  lastEventAt: Date | null;
  snapshotRevision: number;
  /** Events after the starting point still to fold. */
  events: RecordedEvent[];
}

export class StreamStateStore {
  private readonly snapshotEvery: number;
  /**
   * Keyed weakly by the state they led to, so they go when it does (evicted from the cache, replaced by the next
   * one). Folded states share their unchanged parts (see chunkedList.ts), so keeping two costs little.
   */
  private readonly recent = new WeakMap<object, RecentStates>();
  /** The newest snapshot's revision of each state a load returned, for a command decided on that state (handle's `current`). */
  private readonly snapshotRevisions = new WeakMap<object, number>();

  constructor(
    private readonly store: EventStore,
    private readonly cache: StateCache,
    private readonly clock: Clock,
    private readonly options: StreamStateStoreOptions = {},
  ) {
    this.snapshotEvery = options.snapshots ? (options.snapshotEvery ?? 0) : 0;
    // Given before the append returns: this store's own appends cache their new state right after.
    if (options.soleWriter) store.onAppended((appended) => appended && cache.delete(appended.streamName));
  }

  async load<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
  ): Promise<LoadedState<State>> {
    const { loaded } = await this.loadTracked(streamName, decider);
    this.cache.recordLoad?.(loaded.source);
    // A write request's If-Match on this stream (see WriteFence) is judged on the first state it reads of it, so a
    // write that reads the stream and appends elsewhere, or appends what it decided on this state, is refused too.
    const fence = currentWriteFence();
    if (fence?.refuses(streamName, loaded.revision)) throw fence.failure(loaded.revision);
    return loaded;
  }

  /** The state this process has cached for the stream, as it is (it may be behind the log); no read. */
  cachedState<State, Command, Event extends { type: string; data: object }>(streamName: string, _decider: Decider<State, Command, Event>): State | undefined {
    return this.cache.get<State>(streamName, this.clock.now().getTime())?.state;
  }

  /**
   * Several streams' states, the cached ones caught up in one read of the store (readStreamTails) instead of one each:
   * the states one request needs together. A stream not cached is loaded on its own.
   */
  async loadMany<const Streams extends readonly StreamOf<unknown>[]>(streams: Streams): Promise<LoadedStates<Streams>> {
    const now = this.clock.now().getTime();
    const cached = this.options.soleWriter ? [] : streams.map((stream) => this.cache.get<unknown>(stream.streamName, now));
    const tailsOf = streams.flatMap((stream, index) =>
      cached[index] ? [{ index, streamName: stream.streamName, fromRevision: cached[index].revision + 1 }] : [],
    );
    const tails = tailsOf.length > 1 ? await this.store.readStreamTails(tailsOf) : [];
    const tailOf = new Map(tails.map((tail, at) => [tailsOf[at]!.index, tail]));
    const loaded = await Promise.all(
      streams.map(async (stream, index) => {
        const tail = tailOf.get(index);
        const { loaded } = await this.loadTracked(stream.streamName, stream.decider, tail === undefined ? undefined : { cached: cached[index]!, tail });
        this.cache.recordLoad?.(loaded.source);
        return loaded;
      }),
    );
    return loaded as LoadedStates<Streams>;
  }

  /**
   * The state as it was at `bound`, by replay: from `current` (a state this store loaded, e.g. the one a command
   * decides on) or one of the restore points this process folded before it (see RestorePoints), else from the
   * newest snapshot that is not past the bound, else from the start. The cache is neither read nor filled: it
   * holds current states only.
   */
  async loadAt<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    bound: HistoryBound,
    current?: State,
  ): Promise<HistoricState<State>> {
    const empty: HistoricState<State> = { state: decider.initialState(), revision: -1, position: 0, source: 'cold', lastEventAt: null };
    let start: Start<State>;
    try {
      const recent = 'revision' in bound && current !== undefined ? await this.recentStart(streamName, current, bound.revision) : undefined;
      start =
        recent ??
        ('revision' in bound ? await this.startingPoint(streamName, decider, bound.revision) : await this.startingPoint(streamName, decider, undefined, false));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return empty;
      throw error;
    }
    let { state, revision, position, lastEventAt } = start;
    for (const event of start.events) {
      if ('at' in bound && event.createdAt.getTime() > bound.at.getTime()) break;
      state = foldEvent(decider, state, event);
      revision = event.revision;
      position = event.position;
      lastEventAt = event.createdAt;
    }
    return revision < 0 ? empty : { state, revision, position, source: 'resumed', lastEventAt };
  }

  /**
   * Loads, decides and appends with the loaded revision as the expected one. A conflict means someone
   * else wrote first: reload and decide again, so the decision always rests on the latest state.
   */
  async handle<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    command: CommandOrDecision<State, Command>,
    metadata: EventMetadata,
    /** A state of this stream the request has just loaded (loadMany): decided on as it is, with no other read. */
    current?: LoadedState<State>,
  ): Promise<CommandResult<State, Event>> {
    const { opened: _opened, ...result } = await this.handleOpening(streamName, decider, command, metadata, undefined, current);
    return result;
  }

  /**
   * handle, and the streams the decision opens (see StreamOpenings) in the same append where the store can. Each
   * attempt is load → decide → append; a conflict starts the next one, on the state the conflict showed behind.
   */
  async handleOpening<
    State,
    Command,
    Event extends { type: string; data: object },
    OpenedState,
    OpenedCommand,
    OpenedEvent extends { type: string; data: object },
  >(
    streamName: string,
    decider: Decider<State, Command, Event>,
    command: CommandOrDecision<State, Command>,
    metadata: EventMetadata,
    openings: StreamOpenings<Event, OpenedState, OpenedCommand, OpenedEvent> | undefined,
    current?: LoadedState<State>,
  ): Promise<CommandResult<State, Event> & { opened: Array<OpenedStream<OpenedState, OpenedEvent>> }> {
    const keyed = currentIdempotentWrite();
    const append: KeyedAppend | undefined = keyed && { keyed, number: keyed.nextAppend(streamName) };
    // A keyed request sent again after its answer was lost: what an earlier attempt wrote is the answer.
    const replayed = append?.keyed.recovering ? await this.earlierAttempt(streamName, decider, append) : undefined;
    if (replayed) return { ...replayed, earlier: true, opened: [] };
    // The request's If-Match on this stream (see WriteFence), if it has one.
    const fence = currentWriteFence();
    const attempts: Attempts<State> = {
      caughtUp: current && { loaded: current, snapshotRevision: this.loadedSnapshotRevision(current.state) },
      ownStillCached: false,
      opening: openings !== undefined && this.store.appendsToStreamsAtomically,
    };
    for (let attempt = 0; ; attempt++) {
      const invalidations = this.cache.invalidations;
      const start = this.cachedStart<State>(streamName, attempt, attempts) ?? { tracked: await this.loadTracked(streamName, decider), fromCache: false };
      const decision = await this.decideAttempt(streamName, decider, command, start, fence, attempts);
      if (decision === AGAIN) continue;
      const { loaded } = start.tracked;
      if (decision.events.length === 0) return { ...loaded, events: [], written: false, opened: [] };
      const toOpen = attempts.opening ? this.decideOpenings(openings!, decision.events) : [];
      const appended = await this.appendAttempt(streamName, loaded, decision, toOpen, metadata, append, attempt, attempts);
      if (appended === AGAIN) continue;
      if (appended.own.alreadyStored && append) {
        // Another attempt of this request wrote this append first: answer what it wrote, never decide twice.
        this.cache.delete(streamName);
        for (const opened of toOpen) this.cache.delete(opened.streamName);
        const earlier = await this.earlierAttempt(streamName, decider, append);
        if (earlier) return { ...earlier, earlier: true, opened: [] };
      }
      fence?.settle(streamName);
      return this.settleAppend(streamName, decider, start.tracked, decision.events, appended, openings, toOpen, invalidations);
    }
  }

  /**
   * The state an attempt decides on without reading the stream: the one the attempt before caught up, or the cached
   * state (on the first attempt, or after a conflict on another stream only), whose append's expected revision proves
   * it current. undefined: load it.
   */
  private cachedStart<State>(streamName: string, attempt: number, attempts: Attempts<State>): AttemptStart<State> | undefined {
    const cached = (attempt === 0 || attempts.ownStillCached) && !attempts.caughtUp ? this.cachedTracked<State>(streamName) : undefined;
    attempts.ownStillCached = false;
    const caughtUp = attempts.caughtUp;
    attempts.caughtUp = undefined;
    if (cached) return { tracked: cached, fromCache: true };
    return caughtUp && { tracked: caughtUp, fromCache: false };
  }

  /**
   * The request's precondition, then the decision. A refusal (of either) or a decision that writes nothing, made on a
   * cached state or on another stream's cached state, stands only once a read agrees: AGAIN when one had moved on
   * (caught up in `attempts` and the cache for the next attempt).
   */
  private async decideAttempt<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    command: CommandOrDecision<State, Command>,
    start: AttemptStart<State>,
    fence: WriteFence | undefined,
    attempts: Attempts<State>,
  ): Promise<Decision<Event> | typeof AGAIN> {
    const { loaded } = start.tracked;
    const ownMovedOn = async () => start.fromCache && (attempts.caughtUp = await this.movedOn(streamName, decider, loaded.revision)) !== undefined;
    if (fence?.refuses(streamName, loaded.revision)) {
      // A cached state may be behind: the precondition is judged on the stream as it stands.
      if (await ownMovedOn()) return AGAIN;
      throw fence.failure(loaded.revision);
    }
    const conditions = new Map<string, DecisionCondition>();
    let events: Event[];
    try {
      const resolved =
        typeof command === 'function'
          ? await (command as (state: State, reads: DecisionReads) => Command | Promise<Command>)(loaded.state, this.decisionReads(streamName, conditions))
          : command;
      events = decider.decide(resolved, loaded.state);
    } catch (error) {
      if ((await ownMovedOn()) || (await this.conditionsMoved(conditions))) return AGAIN;
      throw error;
    }
    if (events.length === 0 && ((await ownMovedOn()) || (await this.conditionsMoved(conditions)))) return AGAIN;
    return { events, conditions };
  }

  /**
   * Appends the decision at the revision it was decided on: with the streams it opens and, as conditions, the
   * revisions of the other streams it read, and the request's key claim when one is pending, in one append. AGAIN
   * after a conflict (up to MAX_CONFLICT_RETRIES), with every cached state the conflict may show behind dropped or
   * caught up.
   */
  private async appendAttempt<State, Event extends { type: string; data: object }, OpenedEvent extends { type: string; data: object }>(
    streamName: string,
    loaded: LoadedState<State>,
    decision: Decision<Event>,
    toOpen: ReadonlyArray<{ streamName: string; events: OpenedEvent[] }>,
    metadata: EventMetadata,
    append: KeyedAppend | undefined,
    attempt: number,
    attempts: Attempts<State>,
  ): Promise<{ own: AppendResult; opened: AppendResult[] } | typeof AGAIN> {
    const { conditions } = decision;
    try {
      const own = {
        streamName,
        events: this.newEvents(streamName, decision.events, metadata, append),
        expectedRevision: loaded.revision < 0 ? ('no_stream' as const) : loaded.revision,
      };
      // A key still to be claimed goes with this append, in its statement (see IdempotentWrite.pendingClaim).
      const claim = append?.keyed.pendingClaim;
      if (toOpen.length === 0 && conditions.size === 0 && !claim)
        return { own: await this.store.append(own.streamName, own.events, own.expectedRevision), opened: [] };
      const opened = toOpen.map((stream) => ({
        streamName: stream.streamName,
        events: this.newEvents(
          stream.streamName,
          stream.events,
          metadata,
          append && { keyed: append.keyed, number: append.keyed.nextAppend(stream.streamName) },
        ),
        expectedRevision: 'no_stream' as const,
      }));
      // A stream the decision both read and opens is checked by its opening's expectation (no stream).
      const held = [...conditions]
        .filter(([name]) => !toOpen.some((stream) => stream.streamName === name))
        .map(([name, condition]) => ({ streamName: name, events: [], expectedRevision: condition.revision < 0 ? ('no_stream' as const) : condition.revision }));
      const [ownAppended, ...openedAppends] = await this.store.appendToStreams([own, ...opened, ...held], claim);
      return { own: ownAppended!, opened: openedAppends.slice(0, opened.length) };
    } catch (error) {
      // Another request holds the key: nothing was appended and the cached states stand; the request claims anew.
      if (error instanceof AppendClaimTakenError) throw error;
      const conflict = error instanceof WrongExpectedRevisionError;
      // A condition that no longer held: the state the decision read of that stream was behind, and only that one.
      if (conflict && conditions.has(error.streamName)) attempts.ownStillCached = true;
      else {
        // Either way the cached state may be behind the log: a conflict says so, and an append that failed without
        // an answer (a connection cut at commit) may have been written.
        this.cache.delete(streamName);
        for (const opened of toOpen) this.cache.delete(opened.streamName);
      }
      if (!conflict) throw error;
      // The streams the decision read are caught up too (one read each for those it had from the cache; one read
      // in the moment before the append is dropped if it refused), so the next attempt is not refused on them.
      const refused = conditions.get(error.streamName);
      if (refused && !refused.fromCache) this.cache.delete(error.streamName);
      await this.conditionsMoved(conditions, true);
      if (attempt >= MAX_CONFLICT_RETRIES) throw error;
      // An opened stream that exists after all: the caller opens it the slow way.
      if (!conditions.has(error.streamName) && error.streamName !== streamName) attempts.opening = false;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
      return AGAIN;
    }
  }

  /** The new state and the opened streams', cached (with a snapshot when one is due) and answered. */
  private async settleAppend<
    State,
    Command,
    Event extends { type: string; data: object },
    OpenedState,
    OpenedCommand,
    OpenedEvent extends { type: string; data: object },
  >(
    streamName: string,
    decider: Decider<State, Command, Event>,
    { loaded, snapshotRevision }: Tracked<State>,
    events: Event[],
    appended: { own: AppendResult; opened: AppendResult[] },
    openings: StreamOpenings<Event, OpenedState, OpenedCommand, OpenedEvent> | undefined,
    toOpen: ReadonlyArray<{ streamName: string; events: OpenedEvent[]; state: OpenedState }>,
    /** The cache's invalidations when the state decided on was read. */
    invalidations: number,
  ): Promise<CommandResult<State, Event> & { opened: Array<OpenedStream<OpenedState, OpenedEvent>> }> {
    const state = events.reduce((folded, event) => foldEvent(decider, folded, event), loaded.state);
    const revision = appended.own.nextExpectedRevision;
    this.remember(decider, { state: loaded.state, revision: loaded.revision, position: loaded.position }, { state, revision, position: appended.own.position });
    const snapshotted = await this.snapshotIfDue(streamName, decider, state, revision, appended.own.position, snapshotRevision);
    this.cacheUnlessInvalidated(invalidations, streamName, state, revision, appended.own.position, snapshotted);
    const opened = toOpen.map((stream, index) => {
      const { nextExpectedRevision, position } = appended.opened[index]!;
      this.remember(openings!.decider, undefined, { state: stream.state, revision: nextExpectedRevision, position });
      this.cache.set(stream.streamName, stream.state, nextExpectedRevision, position, this.clock.now().getTime(), -1);
      return { streamName: stream.streamName, state: stream.state, revision: nextExpectedRevision, position, events: stream.events };
    });
    return {
      state,
      revision,
      events,
      position: Math.max(appended.own.position, ...opened.map((stream) => stream.position)),
      written: true,
      source: loaded.source,
      opened,
    };
  }

  /**
   * Caches a state read or decided since the cache counted `invalidations`. A rewrite in place (erasure, retention)
   * counted since may have come after the read: the state is right in its revisions, not in what it holds, so it is
   * dropped instead and the next load reads the stream as it is.
   */
  private cacheUnlessInvalidated(
    invalidations: number,
    streamName: string,
    state: unknown,
    revision: number,
    position: number,
    snapshotRevision: number,
  ): void {
    if (this.cache.invalidations === invalidations) this.cache.set(streamName, state, revision, position, this.clock.now().getTime(), snapshotRevision);
    else this.cache.delete(streamName);
  }

  /** Decided events as the store takes them: a keyed request's carry the ids its key gives this append. */
  private newEvents(
    streamName: string,
    events: ReadonlyArray<{ type: string; data: object }>,
    metadata: EventMetadata,
    append: KeyedAppend | undefined,
  ): NewEvent[] {
    return events.map((event, index) => ({
      ...(append ? { id: append.keyed.eventId(streamName, append.number, index) } : {}),
      type: event.type,
      data: event.data as unknown as JsonObject,
      metadata: { schemaVersion: eventSchemaHistory.currentVersion(event.type), ...metadata, ...(append ? { idempotencyKey: append.keyed.tag } : {}) },
    }));
  }

  /**
   * Appends events decided on `loaded` (a state `load` returned) at its revision, each with the id its decision gave
   * it (an item history's ids come from the items, so a retry or a re-import finds what is stored), and caches the
   * state they fold to. A refused expectation or an id stored already throws as the store does; events already
   * stored as this very append answer `written: false`. The caller decides again on a fresh load.
   */
  async appendDecided<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    loaded: LoadedState<State>,
    events: ReadonlyArray<Event & { id?: string }>,
    metadata: EventMetadata,
  ): Promise<CommandResult<State, Event>> {
    const invalidations = this.cache.invalidations;
    // The request's If-Match on this stream (see WriteFence): `loaded` is the state the events were decided on.
    const fence = currentWriteFence();
    if (fence?.refuses(streamName, loaded.revision)) throw fence.failure(loaded.revision);
    const keyed = currentIdempotentWrite();
    const newEvents: NewEvent[] = events.map((event) => ({
      ...(event.id === undefined ? {} : { id: event.id }),
      type: event.type,
      data: event.data as unknown as JsonObject,
      metadata: { schemaVersion: eventSchemaHistory.currentVersion(event.type), ...metadata, ...(keyed ? { idempotencyKey: keyed.tag } : {}) },
    }));
    let appended: AppendResult;
    try {
      appended = await this.store.append(streamName, newEvents, loaded.revision < 0 ? 'no_stream' : loaded.revision);
    } catch (error) {
      this.cache.delete(streamName);
      throw error;
    }
    if (appended.alreadyStored) {
      this.cache.delete(streamName);
      return { ...loaded, events: [], written: false };
    }
    fence?.settle(streamName);
    const decided = events.map(({ type, data }) => ({ type, data }) as Event);
    const state = decided.reduce((folded, event) => foldEvent(decider, folded, event), loaded.state);
    const revision = appended.nextExpectedRevision;
    this.remember(decider, { state: loaded.state, revision: loaded.revision, position: loaded.position }, { state, revision, position: appended.position });
    const snapshotted = await this.snapshotIfDue(streamName, decider, state, revision, appended.position, this.loadedSnapshotRevision(loaded.state));
    this.cacheUnlessInvalidated(invalidations, streamName, state, revision, appended.position, snapshotted);
    return { state, revision, events: decided, position: appended.position, written: true, source: loaded.source };
  }

  /** The opened streams' first events, decided on the initial state, and the state they fold to; none that decide nothing. */
  private decideOpenings<Event, OpenedState, OpenedCommand, OpenedEvent extends { type: string; data: object }>(
    openings: StreamOpenings<Event, OpenedState, OpenedCommand, OpenedEvent>,
    decided: readonly Event[],
  ): Array<{ streamName: string; events: OpenedEvent[]; state: OpenedState }> {
    return openings.streamsOpenedBy(decided).flatMap(({ streamName, command }) => {
      const initial = openings.decider.initialState();
      const events = openings.decider.decide(command, initial);
      if (events.length === 0) return [];
      return [{ streamName, events, state: events.reduce((folded, event) => foldEvent(openings.decider, folded, event), initial) }];
    });
  }

  /**
   * What an earlier attempt of a keyed request wrote as its `append`-th append to this stream, as that append's
   * command result (the state just after it, not the stream's current one), or undefined when it wrote nothing.
   */
  private async earlierAttempt<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    { keyed, number: append }: KeyedAppend,
  ): Promise<CommandResult<State, Event> | undefined> {
    const first = await this.store.findEvent(streamName, keyed.eventId(streamName, append, 0));
    if (!first) return undefined;
    const events: RecordedEvent[] = [];
    for (let matched = true; matched;) {
      const page = await this.store.readStream(streamName, { fromRevision: first.revision + events.length, maxCount: EARLIER_APPEND_PAGE });
      matched = page.length === EARLIER_APPEND_PAGE;
      for (const event of page) {
        if (event.id.toLowerCase() !== keyed.eventId(streamName, append, events.length)) {
          matched = false;
          break;
        }
        events.push(event);
      }
    }
    const last = events[events.length - 1]!;
    keyed.foundEarlierWrites = true;
    const at = await this.loadAt(streamName, decider, { revision: last.revision });
    return {
      state: at.state,
      revision: last.revision,
      events: events.map((event) => ({ type: event.type, data: canonicalJson(event.data) }) as unknown as Event),
      position: last.position,
      written: true,
      source: 'resumed',
    };
  }

  /** The cached state as a warm load would find it, without the catch-up read. */
  private cachedTracked<State>(streamName: string): Tracked<State> | undefined {
    const cached = this.cache.get<State>(streamName, this.clock.now().getTime());
    if (!cached) return undefined;
    return { loaded: { state: cached.state, revision: cached.revision, position: cached.position, source: 'warm' }, snapshotRevision: cached.snapshotRevision };
  }

  /**
   * What a decision on `ownStream` reads of other streams. With several-stream appends, each read is a condition of
   * the decision's append, and a cached state is used as it is; the embedded database's cache is never behind (see
   * soleWriter), and elsewhere (EventStoreDB) there is only the read.
   */
  private decisionReads(ownStream: string, conditions: Map<string, DecisionCondition>): DecisionReads {
    return {
      load: async (streamName, decider) => {
        if (!this.store.appendsToStreamsAtomically || this.options.soleWriter || streamName === ownStream) return this.load(streamName, decider);
        const cached = this.cachedTracked<ReturnType<typeof decider.initialState>>(streamName);
        const { loaded } = cached ?? (await this.loadTracked(streamName, decider));
        this.cache.recordLoad?.(loaded.source);
        conditions.set(streamName, { revision: loaded.revision, fromCache: cached !== undefined, decider });
        return loaded;
      },
    };
  }

  /**
   * Whether a stream a decision read from the cache has moved on since (it is caught up in the cache then); `all`
   * catches up every such stream instead of stopping at the first that moved.
   */
  private async conditionsMoved(conditions: ReadonlyMap<string, DecisionCondition>, all = false): Promise<boolean> {
    let moved = false;
    for (const [streamName, condition] of conditions) {
      if (!condition.fromCache || (moved && !all)) continue;
      if (await this.movedOn(streamName, condition.decider, condition.revision)) moved = true;
    }
    return moved;
  }

  /** The stream caught up, when it has moved past `revision` (someone else appended); undefined when it has not. */
  private async movedOn<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    revision: number,
  ): Promise<Tracked<State> | undefined> {
    const tracked = await this.loadTracked(streamName, decider);
    return tracked.loaded.revision === revision ? undefined : tracked;
  }

  /** `prefetched`: the cached state and the events after it, read with other streams' (loadMany). */
  private loadedSnapshotRevision(state: unknown): number {
    return isObject(state) ? (this.snapshotRevisions.get(state) ?? -1) : -1;
  }

  private async loadTracked<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    prefetched?: { cached: CachedState<unknown>; tail: RecordedEvent[] | null },
  ): Promise<Tracked<State>> {
    const now = this.clock.now().getTime();
    const invalidations = this.cache.invalidations;
    const cached = (prefetched?.cached as CachedState<State> | undefined) ?? this.cache.get<State>(streamName, now);
    if (cached && this.options.soleWriter) {
      if (isObject(cached.state)) this.snapshotRevisions.set(cached.state, cached.snapshotRevision);
      return {
        loaded: { state: cached.state, revision: cached.revision, position: cached.position, source: 'warm' },
        snapshotRevision: cached.snapshotRevision,
      };
    }
    let start: Start<State>;
    try {
      // Another instance may have appended since we cached: catch up from the cached revision.
      if (prefetched?.tail === null) throw new StreamNotFoundError(streamName);
      start = cached
        ? { ...cached, lastEventAt: null, events: prefetched?.tail ?? (await this.store.readStream(streamName, { fromRevision: cached.revision + 1 })) }
        : await this.startingPoint(streamName, decider);
    } catch (error) {
      if (error instanceof StreamNotFoundError)
        return { loaded: { state: decider.initialState(), revision: -1, position: 0, source: 'cold' }, snapshotRevision: -1 };
      throw error;
    }
    let { state, revision, position } = start;
    for (const event of start.events) {
      const before = { state, revision, position };
      state = foldEvent(decider, state, event);
      revision = event.revision;
      position = event.position;
      this.remember(decider, before, { state, revision, position });
    }
    if (revision < 0) return { loaded: { state, revision, position, source: 'cold' }, snapshotRevision: -1 };
    if (isObject(state) && !this.recent.has(state)) this.remember(decider, undefined, { state, revision, position });
    const snapshotRevision = await this.snapshotIfDue(streamName, decider, state, revision, position, start.snapshotRevision);
    this.cacheUnlessInvalidated(invalidations, streamName, state, revision, position, snapshotRevision);
    if (isObject(state)) this.snapshotRevisions.set(state, snapshotRevision);
    return { loaded: { state, revision, position, source: cached ? 'warm' : 'resumed' }, snapshotRevision };
  }

  /**
   * Records `next` as folded right after `previous`, with the newest RESTORE_POINTS restore points up to and
   * including `previous`. `previous` stops being a starting point itself: only the newest state of a stream is,
   * so the states kept never chain back through the history.
   */
  private remember(decider: object, previous: FoldedPoint<unknown> | undefined, next: FoldedPoint<unknown>): void {
    const keeps = restorePointsOf(decider);
    if (!keeps || !isObject(next.state) || next.state === previous?.state) return;
    let restorePoints: FoldedPoint<unknown>[] = [];
    if (previous && isObject(previous.state)) {
      restorePoints = this.recent.get(previous.state)?.restorePoints ?? [];
      this.recent.delete(previous.state);
      if (previous.revision >= 0 && keeps.isRestorePoint(previous.state)) restorePoints = [previous, ...restorePoints].slice(0, RESTORE_POINTS);
    }
    this.recent.set(next.state, { revision: next.revision, position: next.position, restorePoints });
  }

  /**
   * The newest of `current` and the restore points folded before it that is not past `toRevision`, and the
   * events after it; undefined when none is known. Checked against the log like a snapshot: the event at its
   * revision must be the one it was folded from.
   */
  private async recentStart<State>(streamName: string, current: State, toRevision: number): Promise<Start<State> | undefined> {
    const recent = isObject(current) ? this.recent.get(current) : undefined;
    if (!recent) return undefined;
    const point = [{ state: current as unknown, revision: recent.revision, position: recent.position }, ...recent.restorePoints].find(
      (candidate) => candidate.revision <= toRevision,
    );
    if (!point) return undefined;
    const [first, ...rest] = await this.store.readStream(streamName, { fromRevision: point.revision, toRevision });
    if (!first || first.revision !== point.revision || first.position !== point.position) return undefined;
    return {
      state: point.state as State,
      revision: point.revision,
      position: point.position,
      lastEventAt: first.createdAt,
      snapshotRevision: -1,
      events: rest,
    };
  }

  /** The newest trustworthy snapshot at or before `toRevision` and the events after it; else the whole stream. */
  private async startingPoint<State>(streamName: string, decider: { initialState(): State }, toRevision?: number, useSnapshot = true): Promise<Start<State>> {
    const version = useSnapshot && this.snapshotEvery > 0 ? snapshotVersionOf(decider) : undefined;
    const snapshot = version
      ? await this.options.snapshots!.read(streamName, version, toRevision).catch((error: unknown) => this.snapshotFailed(error, streamName))
      : undefined;
    if (snapshot) {
      // Read from the snapshot's own revision: the event there must be the one the snapshot ended with.
      const events = await this.store.readStream(streamName, { fromRevision: snapshot.revision, toRevision });
      const [first, ...rest] = events;
      if (first && first.revision === snapshot.revision && first.position === snapshot.position) {
        return {
          state: snapshot.state as State,
          revision: snapshot.revision,
          position: snapshot.position,
          lastEventAt: first.createdAt,
          snapshotRevision: snapshot.revision,
          events: rest,
        };
      }
      // A log that does not hold that event (restored from backup, reset, another store): never trust the snapshot.
      await this.options.snapshots!.delete(streamName).catch((error: unknown) => this.snapshotFailed(error, streamName));
    }
    const events = await this.store.readStream(streamName, { fromRevision: 0, toRevision });
    return { state: decider.initialState(), revision: -1, position: 0, lastEventAt: null, snapshotRevision: -1, events };
  }

  /** Writes a snapshot when the stream is snapshotEvery events past its last one; returns the newest snapshot's revision. */
  private async snapshotIfDue<State>(
    streamName: string,
    decider: object,
    state: State,
    revision: number,
    position: number,
    snapshotRevision: number,
  ): Promise<number> {
    if (this.snapshotEvery <= 0 || revision - snapshotRevision < this.snapshotEvery) return snapshotRevision;
    const version = snapshotVersionOf(decider);
    if (!version) return snapshotRevision;
    try {
      await this.options.snapshots!.write({ streamName, version, revision, position, state });
      return revision;
    } catch (error) {
      this.snapshotFailed(error, streamName);
      return snapshotRevision;
    }
  }

  private snapshotFailed(error: unknown, streamName: string): undefined {
    this.options.onSnapshotError?.(error, streamName);
    return undefined;
  }
}
