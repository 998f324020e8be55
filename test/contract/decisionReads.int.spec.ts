// A decision that rests on another stream's state (DecisionReads): a cached state is used without a read, and the
// append carries its revision as a condition, so a state another instance moved meanwhile is never decided on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import type { Decider } from '../../src/events/decider.js';
import type { EventStore, ReadStreamOptions, StreamTail } from '../../src/events/eventStore.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { type DecisionReads, StreamStateStore } from '../../src/events/streamStateStore.js';
import { testBackends, type TestDatabase } from '../support/testDatabases.js';

/** A limit another stream sets, and entries recorded against it. */
type LimitEvent = { type: 'LimitSet'; data: { limit: number } };
type EntryEvent = { type: 'EntryRecorded'; data: { underLimit: number } };
type Event = LimitEvent | EntryEvent;

const limits: Decider<number, { type: 'SetLimit'; limit: number }, Event> = {
  initialState: () => 0,
  evolve: (state, event) => (event.type === 'LimitSet' ? event.data.limit : state),
  decide: (command, state) => (command.limit === state ? [] : [{ type: 'LimitSet', data: { limit: command.limit } }]),
};

/** Entries: each records the limit it was decided under; refused while the limit is 0; nothing when `same` and unchanged. */
const entries: Decider<number[], { type: 'Record'; limit: number; onlyIfChanged?: boolean }, Event> = {
  initialState: () => [],
  evolve: (state, event) => (event.type === 'EntryRecorded' ? [...state, event.data.underLimit] : state),
  decide: (command, state) => {
    if (command.limit === 0) throw new Error('no limit set');
    if (command.onlyIfChanged && state.at(-1) === command.limit) return [];
    return [{ type: 'EntryRecorded', data: { underLimit: command.limit } }];
  },
};

for (const backend of testBackends()) {
  describe(`decisions resting on another stream: ${backend.label}`, () => {
    let database: TestDatabase;
    let store: EventStore;
    const reads: string[] = [];
    const clock = new ManualClock(new Date('2026-06-16T09:00:00Z'));
    const metadata = { actor: 'test' };
    /** This instance (its reads counted) and another one with a cache of its own, over the same log. */
    let here: StreamStateStore;
    let other: StreamStateStore;
    let run = 0;

    beforeAll(async () => {
      database = await backend.open();
      const inner = await PostgresEventStore.open(database.pool, { schema: database.schema });
      store = Object.assign(Object.create(inner) as EventStore, {
        readStream: (streamName: string, options?: ReadStreamOptions) => {
          reads.push(streamName);
          return inner.readStream(streamName, options);
        },
        readStreamTails: (tails: readonly StreamTail[]) => {
          reads.push(...tails.map((tail) => tail.streamName));
          return inner.readStreamTails(tails);
        },
      });
      here = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 100 }), clock);
      other = new StreamStateStore(inner, new BoundedStateCache({ maxEntries: 100 }), clock);
    });
    afterAll(async () => {
      await store?.close();
      await database?.dispose();
    });

    const streamsOfRun = () => ({ limit: `limit-${++run}`, entry: `entry-${run}` });
    const record =
      (limitStream: string, onlyIfChanged = false) =>
      async (_state: number[], reads: DecisionReads) => ({ type: 'Record' as const, limit: (await reads.load(limitStream, limits)).state, onlyIfChanged });

    it('decides on a cached state of the other stream without reading it, its revision a condition of the append', async () => {
      const { limit, entry } = streamsOfRun();
      await here.handle(limit, limits, { type: 'SetLimit', limit: 5 }, metadata);
      await here.handle(entry, entries, record(limit), metadata);
      reads.length = 0;
      const decided = await here.handle(entry, entries, record(limit), metadata);
      expect(decided.events).toEqual([{ type: 'EntryRecorded', data: { underLimit: 5 } }]);
      expect(reads).toEqual([]);
    });

    it('decides again on the state another instance moved the other stream to, instead of the cached one', async () => {
      const { limit, entry } = streamsOfRun();
      await here.handle(limit, limits, { type: 'SetLimit', limit: 5 }, metadata);
      await here.handle(entry, entries, record(limit), metadata);
      await other.handle(limit, limits, { type: 'SetLimit', limit: 7 }, metadata);
      reads.length = 0;
      const decided = await here.handle(entry, entries, record(limit), metadata);
      expect(decided.events).toEqual([{ type: 'EntryRecorded', data: { underLimit: 7 } }]);
      // Only the stream that moved is read again: the decision's own cached state still stood.
      expect(reads).toEqual([limit]);
      expect((await store.readStream(entry)).map((event) => event.data)).toEqual([{ underLimit: 5 }, { underLimit: 7 }]);
    });

    it('catches up both streams when another instance moved both, and decides once more on them', async () => {
      const { limit, entry } = streamsOfRun();
      await here.handle(limit, limits, { type: 'SetLimit', limit: 5 }, metadata);
      await here.handle(entry, entries, record(limit), metadata);
      await other.handle(entry, entries, { type: 'Record', limit: 6 }, metadata);
      await other.handle(limit, limits, { type: 'SetLimit', limit: 8 }, metadata);
      const decided = await here.handle(entry, entries, record(limit), metadata);
      expect(decided.events).toEqual([{ type: 'EntryRecorded', data: { underLimit: 8 } }]);
      expect((await store.readStream(entry)).map((event) => event.data)).toEqual([{ underLimit: 5 }, { underLimit: 6 }, { underLimit: 8 }]);
    });

    it('refuses, or writes nothing, only once a read agrees with the cached state of the other stream', async () => {
      const { limit, entry } = streamsOfRun();
      await here.handle(limit, limits, { type: 'SetLimit', limit: 5 }, metadata);
      await here.handle(entry, entries, record(limit, true), metadata);
      // Here the cached limit still says 5, which this entry stream already recorded: a decision to write nothing.
      await other.handle(limit, limits, { type: 'SetLimit', limit: 9 }, metadata);
      const unchanged = await here.handle(entry, entries, record(limit, true), metadata);
      expect(unchanged.events).toEqual([{ type: 'EntryRecorded', data: { underLimit: 9 } }]);
      // A cached limit of 0 would refuse: the read finds the limit another instance set since.
      const { limit: unset, entry: refused } = streamsOfRun();
      await here.handle(unset, limits, { type: 'SetLimit', limit: 3 }, metadata);
      await here.handle(unset, limits, { type: 'SetLimit', limit: 0 }, metadata);
      await other.handle(unset, limits, { type: 'SetLimit', limit: 4 }, metadata);
      const accepted = await here.handle(refused, entries, record(unset), metadata);
      expect(accepted.events).toEqual([{ type: 'EntryRecorded', data: { underLimit: 4 } }]);
    });
  });
}
