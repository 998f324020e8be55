// Specification of our deadline: alone under fake timers, then against a real server that accepts and never answers.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EsdbEventStore } from '../../src/events/esdb/esdbEventStore.js';
import { withDeadline } from '../../src/events/esdb/withDeadline.js';
import { EventStoreUnavailableError } from '../../src/events/eventStoreErrors.js';

const never = () => new Promise<never>(() => undefined);

describe('withDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects with EventStoreUnavailableError exactly when the deadline passes, not before', async () => {
    vi.useFakeTimers();
    const onExpired = vi.fn();
    const settled = vi.fn();
    const call = withDeadline(never(), 1_000, 'a ping', onExpired);
    call.then(settled, settled);

    await vi.advanceTimersByTimeAsync(999);
    expect(settled).not.toHaveBeenCalled();
    expect(onExpired).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(1);
    await expect(call).rejects.toThrow(EventStoreUnavailableError);
    await expect(call).rejects.toThrow('EventStoreDB did not answer a ping within 1000 ms');
    expect(onExpired).toHaveBeenCalledTimes(1);
  });

  it('passes a result through and clears its timer', async () => {
    vi.useFakeTimers();
    const onExpired = vi.fn();
    await expect(withDeadline(Promise.resolve(42), 1_000, 'a read', onExpired)).resolves.toBe(42);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(onExpired).not.toHaveBeenCalled();
  });

  it('passes a failure through unchanged and clears its timer', async () => {
    vi.useFakeTimers();
    const failure = new RangeError('bad revision');
    await expect(withDeadline(Promise.reject(failure), 1_000, 'an append')).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps its error when the cleanup of the abandoned work fails', async () => {
    vi.useFakeTimers();
    const call = withDeadline(never(), 10, 'a read', () => Promise.reject(new Error('cancel failed')));
    const outcome = expect(call).rejects.toThrow(EventStoreUnavailableError);
    await vi.advanceTimersByTimeAsync(10);
    await outcome;
  });
});

describe('EsdbEventStore against a server that accepts and never answers', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    sockets.length = 0;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function silentServer(): Promise<number> {
    server = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
    return address.port;
  }

  it.each([
    ['ping', (store: EsdbEventStore) => store.ping()],
    ['append', (store: EsdbEventStore) => store.append('deadline-probe', [{ type: 'Probed', data: {} }], 'any')],
    ['readStream', (store: EsdbEventStore) => store.readStream('deadline-probe')],
  ])('%s fails with EventStoreUnavailableError at our deadline', async (_name, operation) => {
    const port = await silentServer();
    // Long enough for the client to connect even on a loaded machine, so what ends the call is the server's silence.
    const store = new EsdbEventStore(`esdb://127.0.0.1:${port}?tls=false`, { deadlineMs: 3_000 });
    try {
      const started = Date.now();
      const error: unknown = await operation(store).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(EventStoreUnavailableError);
      expect(error).toMatchObject({ message: expect.stringContaining('did not answer') });
      // Not before the deadline; and since the server never answers, the test ends only because the deadline cut it short.
      expect(elapsed).toBeGreaterThanOrEqual(2_990);
      // The client really reached the server: this is its own hang that our deadline cut short.
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      await store.close().catch(() => undefined);
    }
  });

  it('stops a subscription that never got an answer, promptly and without calling the handler', async () => {
    const port = await silentServer();
    const store = new EsdbEventStore(`esdb://127.0.0.1:${port}?tls=false`, { deadlineMs: 300 });
    const handler = vi.fn();
    try {
      const subscription = store.subscribe(handler);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The server never answers: stop() returns only because it does not wait for it.
      await subscription.stop();
      await expect(subscription.done).resolves.toBeUndefined();
      expect(handler).not.toHaveBeenCalled();
    } finally {
      await store.close().catch(() => undefined);
    }
  });
});
