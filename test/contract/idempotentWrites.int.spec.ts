// A keyed request's appends through StreamStateStore: ids derived from its key, and a later attempt that finds what an
// earlier one wrote answers with that (the state just after it), writing nothing, on every SQL backend.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import type { EventStore } from '../../src/events/eventStore.js';
import { IdempotentWrite } from '../../src/events/idempotentWrite.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { UpcastingEventStore } from '../../src/events/upcasting/upcastingEventStore.js';
import { keyed, sessionStreams } from '../support/sessionStreams.js';
import { type TestDatabase, testBackends } from '../support/testDatabases.js';

for (const backend of testBackends()) {
  describe(`idempotent writes: ${backend.label}`, () => {
    let database: TestDatabase;
    let store: EventStore;
    const clock = new ManualClock(new Date('2026-06-16T09:00:00Z'));
    const metadata = { actor: 'test' };
    // Two service instances: each its own cache, one log.
    let first: StreamStateStore;
    let second: StreamStateStore;

    beforeAll(async () => {
      database = await backend.open();
      store = new UpcastingEventStore(await PostgresEventStore.open(database.pool, { schema: database.schema }));
      first = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 100 }), clock);
      second = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 100 }), clock);
    });
    afterAll(async () => {
      await store?.close();
      await database?.dispose();
    });

    const { createdSession, recordTurn } = sessionStreams(clock, metadata);

    it('stamps a keyed append with ids derived from the key and the key tag in its metadata', async () => {
      const sessionId = await createdSession(first);
      const write = new IdempotentWrite(randomUUID(), 'tag-1', false);
      const result = await keyed(write, () => recordTurn(first, sessionId, 'hello'));
      const [event] = await store.readStream(sessionStreamName(sessionId), { fromRevision: result.revision });
      expect(event!.id).toBe(new IdempotentWrite(write['seed'], 'tag-1', false).eventId(sessionStreamName(sessionId), 0, 0));
      expect(event!.metadata).toMatchObject({ idempotencyKey: 'tag-1', actor: 'test' });
    });

    it('a recovering attempt on another instance answers the earlier attempt, as of just after it, and writes nothing', async () => {
      const sessionId = await createdSession(first);
      const seed = randomUUID();
      const firstAttempt = await keyed(new IdempotentWrite(seed, 'tag-2', false), () => recordTurn(first, sessionId, 'once'));
      // Someone else writes after it: the retry must still answer the state its own append left.
      await recordTurn(first, sessionId, 'later');
      const retry = await keyed(new IdempotentWrite(seed, 'tag-2', true), () => recordTurn(second, sessionId, 'once'));
      expect(retry).toMatchObject({ revision: firstAttempt.revision, position: firstAttempt.position, written: true });
      expect(retry.events).toEqual(JSON.parse(JSON.stringify(firstAttempt.events)));
      expect(retry.state).toEqual(firstAttempt.state);
      const texts = (await store.readStream(sessionStreamName(sessionId)))
        .filter((event) => event.type === 'TurnRecorded')
        .map((event) => JSON.stringify(event.data));
      expect(texts.filter((text) => text.includes('"once"'))).toHaveLength(1);
    });

    it('an attempt that does not know it is a retry still writes nothing: the derived ids are already stored', async () => {
      const sessionId = await createdSession(first);
      const seed = randomUUID();
      const firstAttempt = await keyed(new IdempotentWrite(seed, 'tag-3', false), () => recordTurn(first, sessionId, 'twice?'));
      const again = await keyed(new IdempotentWrite(seed, 'tag-3', false), () => recordTurn(second, sessionId, 'twice?'));
      expect(again).toMatchObject({ revision: firstAttempt.revision, position: firstAttempt.position });
      expect(await store.readStream(sessionStreamName(sessionId))).toHaveLength(firstAttempt.revision + 1);
      // The first instance's cache was not fooled either: its next write lands after the one turn.
      const next = await recordTurn(first, sessionId, 'next');
      expect(next.revision).toBe(firstAttempt.revision + 1);
    });

    it('a recovering attempt whose earlier attempt wrote nothing to a stream decides and writes it now', async () => {
      const sessionId = await createdSession(first);
      const result = await keyed(new IdempotentWrite(randomUUID(), 'tag-4', true), () => recordTurn(second, sessionId, 'fresh'));
      expect(result.written).toBe(true);
      expect(result.events.map((event) => event.type)).toEqual(['TurnRecorded']);
      expect(await store.readStream(sessionStreamName(sessionId))).toHaveLength(2);
    });

    it('numbers a request’s appends per stream, so two appends to one stream get different ids', async () => {
      const sessionId = await createdSession(first);
      const seed = randomUUID();
      const both = () =>
        keyed(new IdempotentWrite(seed, 'tag-5', true), async () => [await recordTurn(first, sessionId, 'a'), await recordTurn(first, sessionId, 'b')]);
      const [a, b] = await both();
      expect(b!.revision).toBe(a!.revision + 1);
      const [retryA, retryB] = await both();
      expect([retryA!.revision, retryB!.revision]).toEqual([a!.revision, b!.revision]);
      expect(await store.readStream(sessionStreamName(sessionId))).toHaveLength(3);
    });
  });
}
