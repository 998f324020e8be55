// A stream rewritten in place (erasure, retention) keeps its revisions, so only the cache's invalidation tells a
// state store that what it holds is stale. A load or a decision that read the stream before an invalidation and
// finishes after it must not put its state back in the cache: the next read would serve the content that was removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import type { EventStore, ReadStreamOptions, RecordedEvent } from '../../src/events/eventStore.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { UpcastingEventStore } from '../../src/events/upcasting/upcastingEventStore.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { openPgliteDatabase, type TestDatabase } from '../support/testDatabases.js';

describe('cache invalidation during a load: pglite', () => {
  let database: TestDatabase;
  let store: EventStore;
  /** While set, the next stream read waits for it: the moment a load has read its cached state but not the tail. */
  let holdNextRead: Promise<void> | undefined;
  let readStarted: (() => void) | undefined;
  const clock = new ManualClock(new Date('2026-06-16T09:00:00Z'));
  const metadata = { actor: 'test' };
  const cache = new BoundedStateCache({ maxEntries: 100 });
  let streams: StreamStateStore;

  beforeAll(async () => {
    database = await openPgliteDatabase();
    const upcasting = new UpcastingEventStore(await PostgresEventStore.open(database.pool, { schema: database.schema }));
    store = Object.assign(Object.create(upcasting) as EventStore, {
      readStream: async (streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> => {
        const hold = holdNextRead;
        holdNextRead = undefined;
        readStarted?.();
        if (hold) await hold;
        return upcasting.readStream(streamName, options);
      },
    });
    // As on a shared PostgreSQL log: a cached state is caught up with the stream's tail on every load.
    streams = new StreamStateStore(store, cache, clock);
  });
  afterAll(async () => {
    await store?.close();
    await database?.dispose();
  });

  const create = (sessionId: string) =>
    streams.handle(
      sessionStreamName(sessionId),
      sessionDecider,
      {
        type: 'CreateSession',
        sessionId,
        sessionKey: `agent:main:cli:dm:${sessionId}`,
        origin: parseSessionSource({ platform: 'cli', chatType: 'dm', chatId: sessionId }),
        reason: 'new',
        now: clock.now().toISOString(),
      },
      metadata,
    );

  /** Runs `during` while a load of the stream is between its cache read and its tail read. */
  async function loadAcross(streamName: string, during: () => void) {
    let release!: () => void;
    holdNextRead = new Promise<void>((resolve) => (release = resolve));
    const reading = new Promise<void>((resolve) => (readStarted = resolve));
    const load = streams.load(streamName, sessionDecider);
    await reading;
    readStarted = undefined;
    during();
    release();
    return load;
  }

  it('a load that read the cached state before an invalidation does not cache it after', async () => {
    const name = sessionStreamName('inv-a');
    await create('inv-a');
    expect(cache.get(name, clock.now().getTime())).toBeDefined();
    const loaded = await loadAcross(name, () => cache.invalidate(name));
    expect(loaded.source).toBe('warm');
    expect(cache.get(name, clock.now().getTime())).toBeUndefined();
    // The next load reads the stream as it is and caches it again.
    await streams.load(name, sessionDecider);
    expect(cache.get(name, clock.now().getTime())).toBeDefined();
  });

  it('a load across a plain delete (a conflict, an append elsewhere) caches as before', async () => {
    const name = sessionStreamName('inv-b');
    await create('inv-b');
    await loadAcross(name, () => cache.delete(name));
    expect(cache.get(name, clock.now().getTime())).toBeDefined();
  });
});
