// The projection runner on PGlite and PostgreSQL: exactly-once positions, rebuild equality, failures that never skip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource, EntityManager } from 'typeorm';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { createLogger } from '../../src/logging/logger.js';
import { type Projection, ProjectionApplyError } from '../../src/projections/projection.js';
import { isParkable } from '../../src/projections/parkedStreams.js';
import { AdvisoryLockLease, SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import { StreamIndexEntity } from '../../src/projections/streamIndex/streamIndexRow.js';
import { streamIndexProjection } from '../../src/projections/streamIndex/streamIndexProjection.js';
import type { SqlPool } from '../../src/database/sqlPool.js';
import { testBackends, type TestDatabase } from '../support/testDatabases.js';

const logger = createLogger('silent');

/** Refuses events of type `Poison` until told otherwise: a projection that cannot apply an event. */
function fragileProjection(): Projection & { healed: boolean; seen: number[]; failAfterMs: number } {
  const projection = {
    name: 'fragile',
    tables: [] as string[],
    entities: [],
    healed: false,
    seen: [] as number[],
    /** How long an attempt at the poison takes before it fails. */
    failAfterMs: 0,
    // Its error does not name the event: the runner goes one event at a time to find it.
    async applyBatch(events: readonly RecordedEvent[], _manager: EntityManager) {
      for (const event of events) {
        if (event.type === 'Poison' && !projection.healed) {
          await new Promise((resolve) => setTimeout(resolve, projection.failAfterMs));
          throw new Error('cannot apply poison');
        }
        projection.seen.push(event.position);
      }
    },
  };
  return projection;
}

/** Refuses events of type `Toxic` until healed, naming the event; records every event it applies. */
function parkingProjection(): Projection & { healed: boolean; seen: RecordedEvent[] } {
  const projection = {
    name: 'parking',
    tables: [] as string[],
    entities: [],
    healed: false,
    seen: [] as RecordedEvent[],
    async applyBatch(events: readonly RecordedEvent[], _manager: EntityManager) {
      for (const event of events) {
        if (event.type === 'Toxic' && !projection.healed) throw new ProjectionApplyError('parking', event, new RangeError('cannot apply toxic'));
        projection.seen.push(event);
      }
    },
  };
  return projection;
}

/** Records the position of each `Counted` event of its own stream (`counted-<name>`); ignores every other event, and says so. */
function countingOnlyProjection(name: string): Projection & { applied: number[] } {
  const projection = {
    name,
    tables: [] as string[],
    entities: [],
    applied: [] as number[],
    appliesTo: (event: RecordedEvent) => event.type === 'Counted' && event.streamName === `counted-${name}`,
    async applyBatch(events: readonly RecordedEvent[], _manager: EntityManager) {
      for (const event of events) if (projection.appliesTo(event)) projection.applied.push(event.position);
    },
  };
  return projection;
}

/** The pool, writing down the text of every statement sent through it. */
function recordingPool(pool: SqlPool, statements: string[]): SqlPool {
  return {
    kind: pool.kind,
    query: (text, params) => {
      statements.push(text);
      return pool.query(text, params);
    },
    connect: async () => {
      const client = await pool.connect();
      return {
        query: (text, params) => {
          statements.push(text);
          return client.query(text, params);
        },
        release: (error) => client.release(error),
      };
    },
    end: () => pool.end(),
  };
}

describe('which failures park a stream', () => {
  const event = { streamName: 's', type: 'T', position: 1, revision: 0 } as RecordedEvent;
  const withCode = (code: string) => Object.assign(new Error('database said no'), { code });
  it('parks on the data (a fold error, a data exception, a constraint), never on the database being away or busy', () => {
    expect(isParkable(new ProjectionApplyError('p', event, new TypeError('x is undefined')))).toBe(true);
    expect(isParkable(new ProjectionApplyError('p', event, withCode('22003')))).toBe(true);
    expect(isParkable(new ProjectionApplyError('p', event, withCode('23505')))).toBe(true);
    expect(isParkable(new ProjectionApplyError('p', event, { driverError: withCode('22003') }))).toBe(true);
    for (const code of ['57P01', '08006', '40001', '55P03', '53100', 'ECONNRESET'])
      expect(isParkable(new ProjectionApplyError('p', event, withCode(code))), code).toBe(false);
    expect(isParkable(new ProjectionApplyError('p', event, new Error('Connection terminated unexpectedly')))).toBe(false);
  });
});

// A database of its own: the pace test counts the pages its projections read, and a transaction of another file in a
// shared database would hold the log's readers, so that pages come back short and are read again.
for (const backend of testBackends({ ownDatabase: true })) {
  describe(`projection runner: ${backend.label}`, () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let dataSource: DataSource;
    let runner: ProjectionRunner;
    const fragile = fragileProjection();

    const newLease = () => (database.connectionString ? new AdvisoryLockLease(database.connectionString, `test:${database.schema}`) : new SoleOwnerLease());

    beforeAll(async () => {
      database = await backend.open();
      store = await PostgresEventStore.open(database.pool, { schema: database.schema, listenConnectionString: database.connectionString });
      dataSource = await openReadModelDatabase(database.pool, database.schema, [streamIndexProjection]);
      runner = new ProjectionRunner({
        store,
        dataSource,
        schema: database.schema,
        projections: [streamIndexProjection, fragile],
        lease: newLease(),
        logger,
        batchSize: 50,
        maxRetryDelayMs: 100,
      });
      await runner.start();
    });

    afterAll(async () => {
      await runner?.stop();
      await dataSource?.destroy();
      await store?.close();
      await database?.dispose();
    });

    const rows = async () => (await dataSource.getRepository(StreamIndexEntity).find({ order: { streamName: 'ASC' } })).map((row) => ({ ...row }));

    it('projects appended events and reaches the position a command wrote', async () => {
      await store.append(
        'conversation-a',
        [
          { type: 'Opened', data: {} },
          { type: 'Bound', data: {} },
        ],
        'no_stream',
      );
      const { position } = await store.append('session-b', [{ type: 'Created', data: {} }], 'no_stream');
      expect(await runner.waitForPosition(['stream-index'], position, 5_000)).toBe(true);
      const index = await rows();
      expect(index.map((row) => [row.streamName, row.category, row.revision, row.eventCount, row.lastEventType])).toEqual([
        ['conversation-a', 'conversation', 1, 2, 'Bound'],
        ['session-b', 'session', 0, 1, 'Created'],
      ]);
      const [status] = await runner.statuses();
      expect(status).toMatchObject({ name: 'stream-index', position, lagEvents: 0, ownedHere: true });
    });

    it('answers false when the projection does not reach a position in time', async () => {
      const head = await store.headPosition();
      expect(await runner.waitForPosition(['stream-index'], head + 1_000_000, 100)).toBe(false);
    });

    it('rebuilds from position 0 to the same rows', async () => {
      let head = 0;
      for (let index = 0; index < 120; index++) {
        head = (await store.append(`session-r${index % 7}`, [{ type: 'Turn', data: { index } }], 'any')).position;
      }
      expect(await runner.waitForPosition(['stream-index'], head, 10_000)).toBe(true);
      const live = await rows();
      const reset = await runner.rebuild('stream-index');
      expect(reset.position).toBe(0);
      expect(await runner.waitForPosition(['stream-index'], head, 10_000)).toBe(true);
      expect(await rows()).toEqual(live);
    });

    it('stops at an event it cannot apply, shows the error, retries, and never skips it', async () => {
      const before = await store.append('job-x', [{ type: 'Fine', data: {} }], 'no_stream');
      const poison = await store.append('job-x', [{ type: 'Poison', data: {} }], 0);
      const after = await store.append('job-x', [{ type: 'Fine', data: {} }], 1);
      expect(await runner.waitForPosition(['fragile'], before.position, 5_000)).toBe(true);
      await expect.poll(async () => (await runner.status('fragile')).state, { timeout: 5_000 }).toBe('failed');
      const failed = await runner.status('fragile');
      expect(failed.lastError).toContain('cannot apply poison');
      expect(failed.failedPosition).toBe(poison.position);
      // It rests exactly before the poison: the events before it in the batch were committed one by one.
      expect(failed.position).toBe(before.position);
      expect(fragile.seen).not.toContain(after.position);
      // Other projections keep going.
      expect(await runner.waitForPosition(['stream-index'], after.position, 5_000)).toBe(true);
      // While it retries (every 100 ms here, each attempt taking 30 ms) it stays failed, for /ready as for the admin view.
      fragile.failAfterMs = 30;
      const seenStates = new Set<string>();
      const retriesBefore = runner.localStates().find((state) => state.name === 'fragile')!.consecutiveFailures;
      for (let sample = 0; sample < 300; sample++) {
        seenStates.add(runner.localStates().find((state) => state.name === 'fragile')!.state);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(runner.localStates().find((state) => state.name === 'fragile')!.consecutiveFailures).toBeGreaterThan(retriesBefore);
      expect([...seenStates]).toEqual(['failed']);
      fragile.failAfterMs = 0;
      fragile.healed = true;
      expect(await runner.waitForPosition(['fragile'], after.position, 5_000)).toBe(true);
      expect(fragile.seen.filter((position) => position === poison.position)).toHaveLength(1);
      expect((await runner.status('fragile')).lastError).toBeNull();
    });

    it('applies a burst of appends as one batch when its wake-up is delayed', async () => {
      const batches: number[] = [];
      const counting: Projection = {
        name: 'counting',
        tables: [],
        entities: [],
        async applyBatch(events: readonly RecordedEvent[]) {
          batches.push(events.length);
        },
      };
      // A long idle poll: only the append notices wake this runner, so what it batches is the delay's doing.
      const delayed = new ProjectionRunner({
        store,
        dataSource,
        schema: database.schema,
        projections: [counting],
        lease: new SoleOwnerLease(),
        logger,
        wakeDelayMs: 1_000,
        idlePollMs: 600_000,
      });
      await delayed.start();
      try {
        expect(await delayed.waitForPosition(['counting'], await store.headPosition(), 10_000)).toBe(true);
        batches.length = 0;
        // Ten appends a few milliseconds apart: a burst to the runner, each alone in its own transaction.
        let last = 0;
        for (let index = 0; index < 10; index++) {
          last = (await store.append(`session-burst${index}`, [{ type: 'Turn', data: { index } }], 'no_stream')).position;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(await delayed.waitForPosition(['counting'], last, 10_000)).toBe(true);
        // Woken at once per append, the runner would read the first append alone.
        expect(batches).toEqual([10]);
      } finally {
        await delayed.stop();
      }
    });

    it('replays a projection another instance rebuilt, with nothing appended since', async () => {
      expect(await runner.waitForPosition(['stream-index'], await store.headPosition(), 10_000)).toBe(true);
      const live = await rows();
      expect(live.length).toBeGreaterThan(0);
      // Another instance's admin route: it empties the tables and sets the checkpoint to 0 without running the loop.
      const elsewhere = new ProjectionRunner({ store, dataSource, schema: database.schema, projections: [streamIndexProjection], lease: newLease(), logger });
      await elsewhere.rebuild('stream-index');
      await expect.poll(rows, { timeout: 10_000, interval: 100 }).toEqual(live);
    });

    it('reads each page of a catch-up once for projections of different speeds, and a stuck one holds nobody', async () => {
      for (let index = 0; index < 4; index++) {
        await store.append(
          `session-pace${index}`,
          Array.from({ length: 100 }, (_, turn) => ({ type: 'Turn', data: { turn } })),
          'no_stream',
        );
      }
      const head = await store.headPosition();
      // Reads stop below the oldest open transaction: with the other runner still applying these appends, pages
      // would come back short and be read again.
      expect(await runner.waitForPosition(runner.projectionNames, head, 10_000)).toBe(true);
      // The events up to the head the projections are asked to reach (an append after it need not be read yet).
      const logLength = (await store.readAll({ fromPosition: 0, maxCount: 100_000 })).filter((event) => event.position <= head).length;
      let eventsRead = 0;
      const counting = new Proxy(store, {
        get(target, key) {
          if (key === 'readAll') {
            return async (options: Parameters<PostgresEventStore['readAll']>[0]) => {
              const page = await target.readAll(options);
              eventsRead += page.length;
              return page;
            };
          }
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const projection = (name: string, apply: (events: readonly RecordedEvent[]) => Promise<void>): Projection => ({
        name,
        tables: [],
        entities: [],
        applyBatch: apply,
      });
      const slow = projection('pace-slow', () => new Promise((resolve) => setTimeout(resolve, 5)));
      const fast = projection('pace-fast', async () => undefined);
      const stuck = projection('pace-stuck', async () => {
        throw new Error('never applies anything');
      });
      // Pages of 10 events: the log is far more pages than the 16 kept, so a fast projection left to run ahead
      // would leave the slow one to read every page again.
      const options = {
        store: counting,
        dataSource,
        schema: database.schema,
        lease: new SoleOwnerLease(),
        logger,
        batchSize: 10,
        catchUpBatchSize: 10,
        farBehindBatchSize: 10,
        maxRetryDelayMs: 50,
      };
      const paced = new ProjectionRunner({ ...options, projections: [slow, fast] });
      await paced.start();
      try {
        expect(await paced.waitForPosition(['pace-slow', 'pace-fast'], head, 60_000)).toBe(true);
        expect(eventsRead).toBeGreaterThanOrEqual(logLength);
        // Left to run ahead, the fast one had the slow one read 1.8 times the log here (on PostgreSQL).
        expect(eventsRead).toBeLessThan(logLength * 1.4);
      } finally {
        await paced.stop();
      }
      const withStuck = new ProjectionRunner({ ...options, projections: [stuck, projection('pace-fast-2', async () => undefined)] });
      await withStuck.start();
      try {
        expect(await withStuck.waitForPosition(['pace-fast-2'], head, 30_000)).toBe(true);
        expect((await withStuck.status('pace-stuck')).position).toBe(0);
      } finally {
        await withStuck.stop();
      }
    });

    it('takes bigger batches the further behind it is: the head batch, a catch-up batch, then far-behind batches', async () => {
      await store.append(
        'session-far-behind',
        Array.from({ length: 200 }, (_, turn) => ({ type: 'Turn', data: { turn } })),
        'no_stream',
      );
      const head = await store.headPosition();
      // Reads stop below the oldest open transaction: the main runner's batches would cut pages short.
      expect(await runner.waitForPosition(runner.projectionNames, head, 10_000)).toBe(true);
      const batches: number[] = [];
      const sizing: Projection = {
        name: 'far-behind-sizing',
        tables: [],
        entities: [],
        async applyBatch(events: readonly RecordedEvent[]) {
          batches.push(events.length);
        },
      };
      const options = { store, dataSource, schema: database.schema, lease: new SoleOwnerLease(), logger, idlePollMs: 600_000 };
      const sized = new ProjectionRunner({ ...options, projections: [sizing], batchSize: 10, catchUpBatchSize: 20, farBehindBatchSize: 40 });
      await sized.start();
      try {
        expect(await sized.waitForPosition(['far-behind-sizing'], head, 30_000)).toBe(true);
        // Each full read makes the next one bigger, up to the far-behind size; a short read ends the catch-up.
        expect(batches.slice(0, 3)).toEqual([10, 20, 40]);
        expect(batches.slice(2, -1).every((size) => size === 40)).toBe(true);
        expect(batches[batches.length - 1]).toBeLessThanOrEqual(40);
      } finally {
        await sized.stop();
      }
      // Without a far-behind size given: 2.5 × the catch-up size.
      batches.length = 0;
      const byDefault = new ProjectionRunner({ ...options, projections: [{ ...sizing, name: 'far-behind-default' }], batchSize: 2, catchUpBatchSize: 4 });
      await byDefault.start();
      try {
        expect(await byDefault.waitForPosition(['far-behind-default'], head, 30_000)).toBe(true);
        expect(batches.slice(0, 4)).toEqual([2, 4, 10, 10]);
        expect(Math.max(...batches)).toBe(10);
      } finally {
        await byDefault.stop();
      }
    });

    it('parks nothing for a failure seen before a rebuild this process began, though the loop stands at 0 like the reset checkpoint', async () => {
      const parking = parkingProjection();
      const parkingRunner = new ProjectionRunner({ store, dataSource, schema: database.schema, projections: [parking], lease: newLease(), logger });
      await parkingRunner.start();
      const stream = `session-race-${Date.now()}`;
      await store.append(stream, [{ type: 'Fine', data: {} }], 'no_stream');
      const [poison] = await store.readStream(stream);
      expect(await parkingRunner.waitForPosition(['parking'], poison!.position, 20_000)).toBe(true);
      await parkingRunner.stop();
      const loop = (parkingRunner as unknown as { loops: Map<string, { rebuilds: number; position: number }> }).loops.get('parking')!;
      const rebuildsBefore = loop.rebuilds;
      await parkingRunner.rebuild('parking');
      expect(loop.position).toBe(0);
      const failure = new ProjectionApplyError('parking', poison!, new RangeError('cannot apply toxic'));
      await expect(parkingRunner.parkStream(loop as never, failure, rebuildsBefore)).rejects.toThrow();
      const status = await parkingRunner.status('parking');
      expect(status.position).toBe(0);
      expect(status.parkedStreams).toEqual([]);
    });

    // A loop's failure is stamped on the checkpoint only by the owner whose loop it is, where that loop left it: its
    // read fails once, after `meanwhile` has done what another owner, a lost lease or a rebuild would. The runner is
    // stopped as soon as the stamp was tried, before a retry can move the checkpoint (and clear a stamp) again.
    const failureMeanwhile = async (name: string, meanwhile: (context: { runner: ProjectionRunner; loseLease: () => void }) => Promise<void>) => {
      let lost = false;
      const lease = { tryAcquire: async () => !lost, holds: () => !lost, releaseAll: async () => undefined };
      let armed = false;
      const flaky = new Proxy(store, {
        get(target, key) {
          if (key === 'readAll') {
            return async (options: Parameters<PostgresEventStore['readAll']>[0]) => {
              if (!armed) return target.readAll(options);
              armed = false;
              await meanwhile({ runner: failing, loseLease: () => (lost = true) });
              throw new Error('read-model database went away');
            };
          }
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const projection: Projection = { name, tables: [], entities: [], applyBatch: async () => undefined };
      const failing = new ProjectionRunner({ store: flaky, dataSource, schema: database.schema, projections: [projection], lease, logger });
      let tried!: () => void;
      const stampTried = new Promise<void>((resolve) => (tried = resolve));
      const recordFailure = failing.recordFailure.bind(failing);
      failing.recordFailure = async (...args: Parameters<ProjectionRunner['recordFailure']>) => {
        try {
          return await recordFailure(...args);
        } finally {
          tried();
        }
      };
      await failing.start();
      try {
        expect(await failing.waitForPosition([name], await store.headPosition(), 10_000)).toBe(true);
        armed = true;
        await store.append(`session-${name}`, [{ type: 'Turn', data: {} }], 'any');
        await stampTried;
      } finally {
        await failing.stop();
      }
      return failing.storedStatus(name);
    };

    it("stamps its own loop's failure on the checkpoint", async () => {
      const stored = await failureMeanwhile('failing-owner', async () => undefined);
      expect(stored).toMatchObject({ storedState: 'failed', lastError: 'read-model database went away' });
    });

    it('stamps no failure on a checkpoint another owner moved on since the loop last left it', async () => {
      let moved = 0;
      const stored = await failureMeanwhile('failing-former-owner', async () => {
        // The new owner applied an event this loop has not read, and stands past it, running fine.
        moved = (await store.append('session-failing-former-owner', [{ type: 'Turn', data: {} }], 'any')).position;
        await database.pool.query(`UPDATE "${database.schema}".projection_checkpoints SET position = $2, state = 'running' WHERE name = $1`, [
          'failing-former-owner',
          moved,
        ]);
      });
      expect(stored).toMatchObject({ position: moved, storedState: 'running', lastError: null, failedPosition: null });
    });

    it('stamps no failure once this instance lost the lease, though the checkpoint still stands where its loop left it', async () => {
      const stored = await failureMeanwhile('failing-lost-lease', async ({ loseLease }) => loseLease());
      expect(stored).toMatchObject({ storedState: 'running', lastError: null });
    });

    it('stamps no failure seen before a rebuild this process began, though the loop stands at 0 like the reset checkpoint', async () => {
      const stored = await failureMeanwhile('failing-before-rebuild', async ({ runner: failing }) => {
        await failing.rebuild('failing-before-rebuild');
      });
      expect(stored).toMatchObject({ position: 0, storedState: 'rebuilding', lastError: null, failedPosition: null });
    });

    it('parks a stream whose event keeps failing on its own data, goes on with every other stream, and lists it until a rebuild', async () => {
      const parking = parkingProjection();
      const parkingRunner = new ProjectionRunner({
        store,
        dataSource,
        schema: database.schema,
        projections: [parking],
        lease: newLease(),
        logger,
        batchSize: 50,
        maxRetryDelayMs: 20,
        parkAfterFailures: 3,
      });
      await parkingRunner.start();
      try {
        const toxic = await store.append(
          'session-poisoned',
          [
            { type: 'Fine', data: {} },
            { type: 'Toxic', data: {} },
          ],
          'any',
        );
        const later = await store.append('session-poisoned', [{ type: 'Fine', data: {} }], 'any');
        const other = await store.append('session-bystander', [{ type: 'Fine', data: {} }], 'any');
        expect(await parkingRunner.waitForPosition(['parking'], other.position, 20_000)).toBe(true);
        const status = await parkingRunner.status('parking');
        expect(status).toMatchObject({ state: expect.not.stringMatching(/failed/), lastError: null });
        expect(status.parkedStreams).toEqual([
          {
            streamName: 'session-poisoned',
            firstPosition: toxic.position,
            lastPosition: later.position,
            skippedEvents: 2,
            error: expect.stringContaining('cannot apply toxic'),
            parkedAt: expect.any(Date),
          },
        ]);
        // The bystander's event went in; nothing of the parked stream after the poison did.
        expect(parking.seen.map((event) => event.position)).toContain(other.position);
        expect(parking.seen.map((event) => event.position)).not.toContain(later.position);
        expect((await parkingRunner.parkedAmong('parking', ['session-poisoned', 'session-bystander'])).map((parked) => parked.streamName)).toEqual([
          'session-poisoned',
        ]);
        // Fixed and rebuilt: the stream is tried again, applies, and is no longer parked.
        parking.healed = true;
        parking.seen.length = 0;
        await parkingRunner.rebuild('parking');
        expect(await parkingRunner.waitForPosition(['parking'], other.position, 20_000)).toBe(true);
        expect((await parkingRunner.status('parking')).parkedStreams).toEqual([]);
        expect(parking.seen.map((event) => event.position)).toEqual(expect.arrayContaining([toxic.position, later.position, other.position]));
      } finally {
        await parkingRunner.stop();
      }
    });

    // Another owner (an instance that took the lease over, or a second runner on PGlite) moves the checkpoint while
    // this runner sleeps between a burst of appends and its delayed read: the batch this runner then commits starts
    // where it no longer is, so it is refused whole and the runner goes on from where the other owner left it.
    const ownerMovesCheckpoint = async (name: string, batchSize: number, types: string[], movedTo: (positions: number[]) => number) => {
      const projection = countingOnlyProjection(name);
      const recorder = new ProjectionRunner({
        store,
        dataSource,
        schema: database.schema,
        projections: [projection],
        lease: newLease(),
        logger,
        batchSize,
        wakeDelayMs: 500,
        // Long enough that the batch after the wake-up starts from the position the loop holds (an idle poll reads the
        // stored one), short enough to go on if that read stopped below another transaction on a shared server.
        idlePollMs: 3_000,
      });
      await recorder.start();
      try {
        expect(await recorder.waitForPosition([name], await store.headPosition(), 10_000)).toBe(true);
        await expect.poll(() => recorder.localStates()[0]!.state, { timeout: 5_000 }).toBe('live');
        const positions: number[] = [];
        for (const type of types) positions.push((await store.append(`counted-${name}`, [{ type, data: {} }], 'any')).position);
        const moved = movedTo(positions);
        await database.pool.query(`UPDATE "${database.schema}".projection_checkpoints SET position = $2 WHERE name = $1`, [name, moved]);
        const last = positions[positions.length - 1]!;
        expect(await recorder.waitForPosition([name], last, 20_000)).toBe(true);
        expect((await recorder.storedStatus(name)).position).toBe(Math.max(moved, last));
        return { applied: projection.applied, positions };
      } finally {
        await recorder.stop();
      }
    };

    it('refuses a batch whose checkpoint another owner moved, and applies only what lies past it', async () => {
      const { applied, positions } = await ownerMovesCheckpoint('moved-under-batch', 50, ['Counted', 'Counted', 'Counted'], (positions) => positions[1]!);
      expect(applied).toEqual([positions[2]]);
    });

    it('refuses to move a checkpoint another owner moved past a batch it does not apply', async () => {
      // Its first batch is two events it ignores; the other owner applied the third already. Moving the checkpoint
      // to the batch's end regardless would take it back and apply the third event again.
      const { applied } = await ownerMovesCheckpoint('moved-past-skipped', 2, ['Other', 'Other', 'Counted'], (positions) => positions[2]!);
      expect(applied).toEqual([]);
    });

    it('moves the checkpoint alone, without a transaction, past a batch with no event the projection applies', async () => {
      const statements: string[] = [];
      const recorded = await openReadModelDatabase(recordingPool(database.pool, statements), database.schema, []);
      const ignoring = countingOnlyProjection('ignoring');
      const recorder = new ProjectionRunner({ store, dataSource: recorded, schema: database.schema, projections: [ignoring], lease: newLease(), logger });
      await recorder.start();
      try {
        expect(await recorder.waitForPosition(['ignoring'], await store.headPosition(), 10_000)).toBe(true);
        await expect.poll(() => recorder.localStates()[0]!.state, { timeout: 5_000 }).toBe('live');
        statements.length = 0;
        const other = await store.append('counted-ignoring', [{ type: 'Other', data: {} }], 'any');
        expect(await recorder.waitForPosition(['ignoring'], other.position, 10_000)).toBe(true);
        expect(statements.filter((text) => /^\s*(START TRANSACTION|BEGIN|COMMIT)/i.test(text))).toEqual([]);
        // (An idle poll may read the stored position meanwhile; only the move writes.)
        expect(statements.filter((text) => /UPDATE [^;]*projection_checkpoints/.test(text))).toHaveLength(1);
        expect((await recorder.storedStatus('ignoring')).position).toBe(other.position);
        // An event it applies still goes through a transaction with the checkpoint.
        const counted = await store.append('counted-ignoring', [{ type: 'Counted', data: {} }], 'any');
        expect(await recorder.waitForPosition(['ignoring'], counted.position, 10_000)).toBe(true);
        expect(ignoring.applied).toEqual([counted.position]);
        expect(statements.some((text) => /^\s*START TRANSACTION/i.test(text))).toBe(true);
      } finally {
        await recorder.stop();
        await recorded.destroy();
      }
    });

    it('lets a second runner on the same database apply nothing twice', async () => {
      const second = new ProjectionRunner({
        store,
        dataSource,
        schema: database.schema,
        projections: [streamIndexProjection],
        lease: newLease(),
        logger,
        standbyPollMs: 20,
      });
      await second.start();
      try {
        let last = 0;
        for (let index = 0; index < 60; index++) last = (await store.append('session-shared', [{ type: 'Turn', data: { index } }], 'any')).position;
        // Wait on the append's own position: the readable head may trail it while a projection transaction is open.
        expect(await runner.waitForPosition(['stream-index'], last, 10_000)).toBe(true);
        const row = await dataSource.getRepository(StreamIndexEntity).findOneByOrFail({ streamName: 'session-shared' });
        expect(row.eventCount).toBe(60);
        expect(row.revision).toBe(59);
      } finally {
        await second.stop();
      }
    });
  });
}
