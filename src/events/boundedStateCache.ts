/** Injection token of the StateCache. */
export const STATE_CACHE = Symbol('StateCache');
// A bounded LRU of folded stream states with a memory budget, idle reclaim and pinning of turns in flight: a cache only, eviction loses nothing.

/** A folded state as cached: the state after `revision`. */
export interface CachedState<State> {
  state: State;
  /** Revision of the last event folded in; -1 for a stream with no events yet. */
  revision: number;
  /** Global position of that last event. */
  position: number;
  /** Revision of the newest snapshot stored for the stream (-1: none), so the next one is written on time. */
  snapshotRevision: number;
  lastAccessAt: number;
}

/** What StreamStateStore needs of a state cache. */
export interface StateCache {
  hits: number;
  misses: number;
  get<State>(streamName: string, now: number): CachedState<State> | undefined;
  set<State>(streamName: string, state: State, revision: number, position: number, now: number, snapshotRevision?: number): void;
  delete(streamName: string): void;
  /**
   * Drops a stream's entry because its stored events were rewritten in place (erasure, retention), which no revision
   * shows: a state read before it and still being folded is not cached after it (StreamStateStore compares
   * `invalidations` before and after).
   */
  invalidate(streamName: string): void;
  /** How many invalidations this cache has had. */
  readonly invalidations: number;
  dropIdle(cutoff: number): number;
  readonly size: number;
  /** Counts how a load was served, for the warm/resumed/cold figures. */
  recordLoad?(kind: LoadKind): void;
}

export interface BoundedStateCacheOptions {
  maxEntries: number;
  /** Approximate budget: the sum of the states' JSON lengths; 0 means no byte limit. */
  maxBytes?: number;
  /** Entries not read or written for this long are dropped by `sweepIdle`; 0 means never. */
  idleTtlMs?: number;
  /** States that must stay (a turn in flight): never evicted, never reclaimed while this holds. */
  isInFlight?: (streamName: string, state: unknown) => boolean;
  /** Size estimate of a state; JSON length by default. */
  sizeOf?: (state: unknown) => number;
}

/** How a state was loaded. warm: served from this process's cache; resumed: rehydrated from the store; cold: no such stream yet (created). */
export type LoadKind = 'warm' | 'resumed' | 'cold';

export interface CacheStats {
  entries: number;
  bytes: number;
  pinned: number;
  hits: number;
  misses: number;
  evictions: number;
  expired: number;
  /** Entries not kept because they alone exceed the byte budget. */
  tooLarge: number;
  loads: Record<LoadKind, number>;
}

interface Entry extends CachedState<unknown> {
  bytes: number;
  pins: number;
}

const jsonLength = (state: unknown): number => JSON.stringify(state)?.length ?? 0;

export class BoundedStateCache implements StateCache {
  // Map insertion order is the LRU order: the first key is the least recently used.
  private readonly entries = new Map<string, Entry>();
  private readonly maxBytes: number;
  private readonly idleTtlMs: number;
  private readonly sizeOf: (state: unknown) => number;
  private bytes = 0;
  hits = 0;
  misses = 0;
  private evictions = 0;
  private expired = 0;
  private tooLarge = 0;
  private invalidationCount = 0;
  private readonly loads: Record<LoadKind, number> = { warm: 0, resumed: 0, cold: 0 };

  constructor(private readonly options: BoundedStateCacheOptions) {
    this.maxBytes = options.maxBytes ?? 0;
    this.idleTtlMs = options.idleTtlMs ?? 0;
    this.sizeOf = options.sizeOf ?? jsonLength;
  }

  get<State>(streamName: string, now: number): CachedState<State> | undefined {
    const entry = this.entries.get(streamName);
    if (!entry) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    this.entries.delete(streamName);
    entry.lastAccessAt = now;
    this.entries.set(streamName, entry);
    return entry as CachedState<State>;
  }

  set<State>(streamName: string, state: State, revision: number, position: number, now: number, snapshotRevision = -1): void {
    const previous = this.entries.get(streamName);
    const pins = previous?.pins ?? 0;
    // A warm load that found nothing new puts the same state back: re-estimating it would cost every cache hit
    // in proportion to the state's size (measured: warm loads of a 10,000-turn session 2.2-2.9× the 10-turn one, 0.8-1.1× without).
    const bytes = previous && previous.state === state ? previous.bytes : this.sizeOf(state);
    this.remove(streamName);
    const entry: Entry = { state, revision, position, snapshotRevision, lastAccessAt: now, bytes, pins };
    if (this.maxBytes > 0 && entry.bytes > this.maxBytes && !this.isPinned(streamName, entry)) {
      this.tooLarge += 1;
      return;
    }
    this.entries.set(streamName, entry);
    this.bytes += entry.bytes;
    this.evictOverBudget();
  }

  delete(streamName: string): void {
    this.remove(streamName);
  }

  invalidate(streamName: string): void {
    this.invalidationCount += 1;
    this.remove(streamName);
  }

  get invalidations(): number {
    return this.invalidationCount;
  }

  /** Keeps a stream's entry against eviction and idle reclaim until as many `unpin`s (e.g. around a turn). */
  pin(streamName: string): void {
    const entry = this.entries.get(streamName);
    if (entry) entry.pins += 1;
  }

  unpin(streamName: string): void {
    const entry = this.entries.get(streamName);
    if (entry && entry.pins > 0) entry.pins -= 1;
    this.evictOverBudget();
  }

  /** Drops unpinned entries idle since before `cutoff` (ms since epoch). */
  dropIdle(cutoff: number): number {
    let dropped = 0;
    for (const [name, entry] of this.entries) {
      if (entry.lastAccessAt < cutoff && !this.isPinned(name, entry)) {
        this.remove(name);
        dropped += 1;
      }
    }
    this.expired += dropped;
    return dropped;
  }

  /** Idle reclaim: drops entries idle longer than the TTL as of `now`. */
  sweepIdle(now: number): number {
    return this.idleTtlMs > 0 ? this.dropIdle(now - this.idleTtlMs) : 0;
  }

  /** Counts how a load was served, for the warm/resumed/cold figures. */
  recordLoad(kind: LoadKind): void {
    this.loads[kind] += 1;
  }

  get size(): number {
    return this.entries.size;
  }

  stats(): CacheStats {
    let pinned = 0;
    for (const [name, entry] of this.entries) if (this.isPinned(name, entry)) pinned += 1;
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      pinned,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      expired: this.expired,
      tooLarge: this.tooLarge,
      loads: { ...this.loads },
    };
  }

  private isPinned(streamName: string, entry: Entry): boolean {
    return entry.pins > 0 || (this.options.isInFlight?.(streamName, entry.state) ?? false);
  }

  private overBudget(): boolean {
    return this.entries.size > this.options.maxEntries || (this.maxBytes > 0 && this.bytes > this.maxBytes);
  }

  /** Least recently used first, skipping pinned entries; stops over budget when only pinned ones are left. */
  private evictOverBudget(): void {
    if (!this.overBudget()) return;
    for (const [name, entry] of this.entries) {
      if (!this.overBudget()) return;
      if (this.isPinned(name, entry)) continue;
      this.remove(name);
      this.evictions += 1;
    }
  }

  private remove(streamName: string): void {
    const entry = this.entries.get(streamName);
    if (!entry) return;
    this.entries.delete(streamName);
    this.bytes -= entry.bytes;
  }
}
