// A bounded LRU of folded stream states: a cache only, so eviction never loses data.
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

export class FoldedStateCache {
  private readonly entries = new Map<string, CachedState<unknown>>();
  hits = 0;
  misses = 0;

  constructor(private readonly maxEntries: number) {}

  get<State>(streamName: string, now: number): CachedState<State> | undefined {
    const entry = this.entries.get(streamName);
    if (!entry) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    // Re-inserting moves the entry to the young end of the Map's insertion order.
    this.entries.delete(streamName);
    entry.lastAccessAt = now;
    this.entries.set(streamName, entry);
    return entry as CachedState<State>;
  }

  set<State>(streamName: string, state: State, revision: number, position: number, now: number, snapshotRevision = -1): void {
    this.entries.delete(streamName);
    this.entries.set(streamName, { state, revision, position, snapshotRevision, lastAccessAt: now });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(streamName: string): void {
    this.entries.delete(streamName);
  }

  /** Drops entries idle since before `cutoff` (ms since epoch). */
  dropIdle(cutoff: number): number {
    let dropped = 0;
    for (const [name, entry] of this.entries) {
      if (entry.lastAccessAt < cutoff) {
        this.entries.delete(name);
        dropped += 1;
      }
    }
    return dropped;
  }

  get size(): number {
    return this.entries.size;
  }
}
