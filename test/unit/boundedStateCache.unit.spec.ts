// The bounded state cache: LRU by entries and by an approximate memory budget, idle reclaim, pinning of turns in flight; time from a ManualClock.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import { runtimeTurnInFlight } from '../../src/modules/runtime/runtimeTurnInFlight.js';

const now = (clock: ManualClock) => clock.now().getTime();
const runtimeStream = (n: number) => `runtime-rt_${String(n).padStart(16, '0')}`;

describe('BoundedStateCache', () => {
  it('evicts the least recently used entry past the entry count; a read refreshes recency', () => {
    const clock = new ManualClock();
    const cache = new BoundedStateCache({ maxEntries: 2 });
    cache.set('a', { n: 1 }, 0, 1, now(clock));
    cache.set('b', { n: 2 }, 0, 2, now(clock));
    expect(cache.get('a', now(clock))?.state).toEqual({ n: 1 });
    cache.set('c', { n: 3 }, 0, 3, now(clock));
    expect(cache.get('b', now(clock))).toBeUndefined();
    expect(cache.get('a', now(clock))).toBeDefined();
    expect(cache.stats()).toMatchObject({ entries: 2, evictions: 1, hits: 2, misses: 1 });
  });

  it('keeps the sum of JSON lengths within the byte budget, and does not keep a state larger than it', () => {
    const clock = new ManualClock();
    const cache = new BoundedStateCache({ maxEntries: 100, maxBytes: 100 });
    const state = { text: 'x'.repeat(30) }; // 41 characters of JSON
    cache.set('a', state, 0, 1, now(clock));
    cache.set('b', state, 0, 2, now(clock));
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 82 });
    cache.set('c', state, 0, 3, now(clock));
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 82, evictions: 1 });
    expect(cache.get('a', now(clock))).toBeUndefined();
    cache.set('huge', { text: 'x'.repeat(200) }, 0, 4, now(clock));
    expect(cache.get('huge', now(clock))).toBeUndefined();
    expect(cache.stats()).toMatchObject({ tooLarge: 1, entries: 2 });
  });

  it('replacing an entry accounts its new size, not both', () => {
    const cache = new BoundedStateCache({ maxEntries: 10, maxBytes: 1000 });
    cache.set('a', { text: 'short' }, 0, 1, 0);
    cache.set('a', { text: 'a bit longer' }, 1, 2, 0);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: JSON.stringify({ text: 'a bit longer' }).length });
  });

  it('reclaims entries idle longer than the TTL (default one hour), measured on the injected clock', () => {
    const clock = new ManualClock();
    const cache = new BoundedStateCache({ maxEntries: 10, idleTtlMs: 3_600_000 });
    cache.set('old', {}, 0, 1, now(clock));
    clock.advance(1_800_000);
    cache.set('recent', {}, 0, 2, now(clock));
    clock.advance(1_800_001);
    expect(cache.sweepIdle(now(clock))).toBe(1);
    expect(cache.get('old', now(clock))).toBeUndefined();
    expect(cache.get('recent', now(clock))).toBeDefined();
    expect(cache.stats().expired).toBe(1);
  });

  it('never evicts or reclaims a runtime session with a turn in flight; it goes once the turn ends', () => {
    const clock = new ManualClock();
    const cache = new BoundedStateCache({ maxEntries: 1, idleTtlMs: 1_000, isInFlight: runtimeTurnInFlight });
    cache.set(runtimeStream(1), { currentTurnId: 'turn_1' }, 0, 1, now(clock));
    cache.set('conversation-a', {}, 0, 2, now(clock));
    // Over the entry count with only the newcomer evictable: it goes, the pinned one stays.
    expect(cache.get(runtimeStream(1), now(clock))).toBeDefined();
    clock.advance(5_000);
    cache.sweepIdle(now(clock));
    expect(cache.get(runtimeStream(1), now(clock))).toBeDefined();
    expect(cache.stats().pinned).toBe(1);
    cache.set(runtimeStream(1), { currentTurnId: null }, 1, 3, now(clock));
    clock.advance(5_000);
    expect(cache.sweepIdle(now(clock))).toBe(1);
    expect(cache.size).toBe(0);
  });

  it('explicit pins hold an entry until as many unpins', () => {
    const cache = new BoundedStateCache({ maxEntries: 1 });
    cache.set('a', {}, 0, 1, 0);
    cache.pin('a');
    cache.set('b', {}, 0, 2, 0);
    expect(cache.get('a', 0)).toBeDefined();
    expect(cache.size).toBe(1);
    cache.set('c', {}, 0, 3, 0);
    cache.unpin('a');
    cache.set('d', {}, 0, 4, 0);
    expect(cache.get('a', 0)).toBeUndefined();
  });

  it('counts warm, resumed and cold loads', () => {
    const cache = new BoundedStateCache({ maxEntries: 10 });
    cache.recordLoad('warm');
    cache.recordLoad('warm');
    cache.recordLoad('resumed');
    cache.recordLoad('cold');
    expect(cache.stats().loads).toEqual({ warm: 2, resumed: 1, cold: 1 });
  });
});

describe('the service cache policy', () => {
  it('pins sessions and runtime sessions with a turn in flight, nothing else', async () => {
    const { stateHasTurnInFlight } = await import('../../src/app/stateHasTurnInFlight.js');
    expect(stateHasTurnInFlight('session-a', { turnInFlight: { turnIndex: 2, startedAt: 'x' } })).toBe(true);
    expect(stateHasTurnInFlight('session-a', { turnInFlight: null })).toBe(false);
    expect(stateHasTurnInFlight('runtime-rt_1', { currentTurnId: 'turn_1' })).toBe(true);
    expect(stateHasTurnInFlight('conversation-x', { turnInFlight: { turnIndex: 1 } })).toBe(false);
  });
});
