// Queue depths as this instance last saw them: every conversation state it loads or writes passes through the state cache.
import type { CachedState, LoadKind, StateCache } from '../events/boundedStateCache.js';
import { type ConversationState, queueDepth } from '../modules/conversations/domain/conversationDecider.js';
import { streamCategoryLabel } from './streamCategoryLabel.js';

export interface QueueDepthTotals {
  /** Messages waiting, over every conversation. */
  messages: number;
  /** Conversations with at least one message waiting. */
  conversations: number;
  /** The deepest queue. */
  max: number;
}

/**
 * Only non-empty queues are kept, so the map is as large as the number of conversations with work waiting, not
 * the number of conversations. It is independent of the cache's eviction: an evicted conversation keeps its
 * last known depth until it is loaded again.
 */
export class ConversationQueueDepths {
  private readonly depths = new Map<string, number>();

  observe(streamName: string, state: unknown): void {
    if (streamCategoryLabel(streamName) !== 'conversation') return;
    const depth = queueDepth(state as ConversationState);
    if (depth > 0) this.depths.set(streamName, depth);
    else this.depths.delete(streamName);
  }

  totals(): QueueDepthTotals {
    let messages = 0;
    let max = 0;
    for (const depth of this.depths.values()) {
      messages += depth;
      max = Math.max(max, depth);
    }
    return { messages, conversations: this.depths.size, max };
  }
}

/** The state cache StreamStateStore writes through, watched: every folded conversation state it stores is observed. */
export class QueueWatchingStateCache implements StateCache {
  constructor(
    private readonly inner: StateCache,
    private readonly depths: ConversationQueueDepths,
  ) {}

  get hits(): number {
    return this.inner.hits;
  }

  get misses(): number {
    return this.inner.misses;
  }

  get size(): number {
    return this.inner.size;
  }

  get<State>(streamName: string, now: number): CachedState<State> | undefined {
    return this.inner.get<State>(streamName, now);
  }

  set<State>(streamName: string, state: State, revision: number, position: number, now: number, snapshotRevision?: number): void {
    this.depths.observe(streamName, state);
    this.inner.set(streamName, state, revision, position, now, snapshotRevision);
  }

  delete(streamName: string): void {
    this.inner.delete(streamName);
  }

  invalidate(streamName: string): void {
    this.inner.invalidate(streamName);
  }

  get invalidations(): number {
    return this.inner.invalidations;
  }

  dropIdle(cutoff: number): number {
    return this.inner.dropIdle(cutoff);
  }

  recordLoad(kind: LoadKind): void {
    this.inner.recordLoad?.(kind);
  }
}
