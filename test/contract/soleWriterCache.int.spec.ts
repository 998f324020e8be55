// The sole-writer cache (embedded PGlite): a cached state is served without reading the stream's tail, and an
// append through the same store by anything else drops it, so nothing is ever served stale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import type { EventStore, ReadStreamOptions } from '../../src/events/eventStore.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { UpcastingEventStore } from '../../src/events/upcasting/upcastingEventStore.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { openPgliteDatabase, type TestDatabase } from '../support/testDatabases.js';

describe('sole-writer state cache: pglite', () => {
  let database: TestDatabase;
  let store: EventStore;
  const reads: string[] = [];
  const clock = new ManualClock(new Date('2026-06-16T09:00:00Z'));
  const metadata = { actor: 'test' };
  let streams: StreamStateStore;

  beforeAll(async () => {
    database = await openPgliteDatabase();
    const inner = await PostgresEventStore.open(database.pool, { schema: database.schema });
    // Wrapped as the service wraps it, with every stream read noted.
    const upcasting = new UpcastingEventStore(inner);
    store = Object.assign(Object.create(upcasting) as EventStore, {
      readStream: (streamName: string, options?: ReadStreamOptions) => {
        reads.push(streamName);
        return upcasting.readStream(streamName, options);
      },
    });
    streams = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 100 }), clock, { soleWriter: true });
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

  it('serves a cached state without reading the stream, and decides on it without reading either', async () => {
    const created = await create('sole-a');
    reads.length = 0;
    const loaded = await streams.load(sessionStreamName('sole-a'), sessionDecider);
    expect(loaded).toMatchObject({ source: 'warm', revision: created.revision });
    const ended = await streams.handle(
      sessionStreamName('sole-a'),
      sessionDecider,
      { type: 'EndSession', reason: 'forced', now: clock.now().toISOString() },
      metadata,
    );
    expect(ended.state.status).toBe('ended');
    expect(reads).toEqual([]);
  });

  it('drops the cached state when something else appends to the stream through the store, and then reads it', async () => {
    const created = await create('sole-b');
    const stream = sessionStreamName('sole-b');
    // An importer or a test writing behind the state store's back: the store's notice drops the entry.
    await store.append(
      stream,
      [{ type: 'SessionEnded', data: { reason: 'forced', at: clock.now().toISOString() }, metadata: { schemaVersion: 1 } }],
      created.revision,
    );
    reads.length = 0;
    const loaded = await streams.load(stream, sessionDecider);
    expect(reads).toEqual([stream]);
    expect(loaded).toMatchObject({ source: 'resumed', revision: created.revision + 1 });
    expect(loaded.state.status).toBe('ended');
  });

  it('without soleWriter, a cache hit still reads the tail (another instance may have written)', async () => {
    const shared = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 100 }), clock);
    const stream = sessionStreamName('sole-c');
    await shared.handle(
      stream,
      sessionDecider,
      {
        type: 'CreateSession',
        sessionId: 'sole-c',
        sessionKey: 'agent:main:cli:dm:sole-c',
        origin: parseSessionSource({ platform: 'cli', chatType: 'dm', chatId: 'sole-c' }),
        reason: 'new',
        now: clock.now().toISOString(),
      },
      metadata,
    );
    reads.length = 0;
    expect((await shared.load(stream, sessionDecider)).source).toBe('warm');
    expect(reads).toEqual([stream]);
  });
});
