// The background loops' shared skeleton: runs never overlap, the timer waits after a run ends, a stop waits for the
// run in progress and starts no other.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackgroundLoop } from '../../src/modules/backgroundLoop.js';

/** A run the test ends by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('BackgroundLoop', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs one at a time, in the order asked', async () => {
    const loop = new BackgroundLoop({ intervalMs: 0, onError: () => undefined }, async () => undefined);
    const first = gate();
    const order: string[] = [];
    const a = loop.serially(async () => {
      order.push('a starts');
      await first.opened;
      order.push('a ends');
    });
    const b = loop.serially(async () => void order.push('b'));
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(['a starts']);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(['a starts', 'a ends', 'b']);
  });

  it('times the next run from the end of the start-up run and of each run, and goes on after a failure', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const loop: BackgroundLoop = new BackgroundLoop({ intervalMs: 1000, onError: (error) => errors.push(error) }, () =>
      loop.serially(async () => {
        runs += 1;
        if (runs === 1) throw new Error('first run fails');
      }),
    );
    const startup = gate();
    const started = loop.start(() => startup.opened.then(() => 'started'));
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(0);
    startup.open();
    expect(await started).toBe('started');
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    expect(errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
    await loop.stop();
  });

  it('starts no timer at interval 0', async () => {
    let runs = 0;
    const loop = new BackgroundLoop({ intervalMs: 0, onError: () => undefined }, async () => void (runs += 1));
    loop.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toBe(0);
    await loop.stop();
  });

  it('stops after the run in progress, and runs no other', async () => {
    let runs = 0;
    const inRun = gate();
    const loop: BackgroundLoop = new BackgroundLoop({ intervalMs: 10, onError: () => undefined }, () =>
      loop.serially(async () => {
        runs += 1;
        await inRun.opened;
      }),
    );
    loop.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    expect(loop.stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    inRun.open();
    await stopping;
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
  });
});
