// The cache's size estimate is paid once per state: a warm load putting the same state back does not measure it again.
import { describe, expect, it } from 'vitest';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';

describe('BoundedStateCache sizing', () => {
  it('measures a state once however often the same state is put back, and again when it changes', () => {
    const measured: unknown[] = [];
    const cache = new BoundedStateCache({ maxEntries: 10, sizeOf: (state) => (measured.push(state), JSON.stringify(state).length) });
    const state = { turns: [1, 2, 3] };
    cache.set('a', state, 3, 30, 0);
    cache.set('a', state, 3, 30, 1);
    cache.set('a', state, 3, 30, 2);
    expect(measured).toEqual([state]);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: JSON.stringify(state).length });

    const next = { turns: [1, 2, 3, 4] };
    cache.set('a', next, 4, 40, 3);
    expect(measured).toEqual([state, next]);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: JSON.stringify(next).length });
  });

  it('measures an equal but new state object, since only identity proves it unchanged', () => {
    let measurements = 0;
    const cache = new BoundedStateCache({ maxEntries: 10, sizeOf: () => ++measurements });
    cache.set('a', { n: 1 }, 0, 1, 0);
    cache.set('a', { n: 1 }, 0, 1, 1);
    expect(measurements).toBe(2);
  });
});
