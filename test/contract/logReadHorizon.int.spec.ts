// The log's read horizon: a reader never skips an event that commits late, and on PostgreSQL only a transaction of the
// log's own database holds readers back; one in another database of the same server does not.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresPool } from '../../src/database/postgresPool.js';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { LogHorizonProbe } from '../../src/events/postgres/logHorizon.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { systemClock } from '../../src/clock.js';
import type { SqlPool } from '../../src/database/sqlPool.js';
import { eventually } from '../support/eventually.js';
import { backendsUnderTest, openPgliteDatabase } from '../support/testDatabases.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A database of its own on the test server, so that no other test's transaction in the shared one holds its readers. */
async function createDatabase(admin: pg.Client, prefix: string): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** A client in `url` that holds a transaction with a transaction id until `end` is called. */
async function openTransaction(url: string): Promise<{ client: pg.Client; pid: number; end: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_current_xact_id()');
  return {
    client,
    pid: rows[0]!.pid,
    end: async () => {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

for (const backend of backendsUnderTest()) {
  describe(`log read horizon: ${backend}`, () => {
    let pool: SqlPool;
    let store: PostgresEventStore;
    let dispose: () => Promise<void>;
    let admin: pg.Client | undefined;
    let ledger: { name: string; url: string } | undefined;
    let neighbour: { name: string; url: string } | undefined;
    const schema = `horizon_${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      if (backend === 'pglite') {
        const database = await openPgliteDatabase();
        pool = database.pool;
        dispose = () => database.dispose();
      } else {
        admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await admin.connect();
        ledger = await createDatabase(admin, 'ledger_horizon');
        neighbour = await createDatabase(admin, 'ledger_neighbour');
        const postgresPool = new PostgresPool({ connectionString: ledger.url, max: 12 });
        pool = postgresPool;
        dispose = () => postgresPool.end();
      }
      store = await PostgresEventStore.open(pool, { schema, listenConnectionString: ledger?.url, pollIntervalMs: 20 });
    });
    afterAll(async () => {
      await store?.close();
      await dispose?.();
      for (const database of [ledger, neighbour]) if (database) await admin!.query(`DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`);
      await admin?.end();
    });

    /** Appends `count` single events to `stream`, each in a transaction kept open for up to `holdMs` before it commits. */
    async function slowAppender(stream: string, count: number, holdMs: number): Promise<void> {
      const client = new pg.Client({ connectionString: ledger!.url });
      await client.connect();
      try {
        for (let index = 0; index < count; index++) {
          await client.query('BEGIN');
          await client.query(`SELECT * FROM "${schema}".append_events($1, 'any', NULL, false, $2::uuid[], $3::text[], $4::jsonb[], $5::jsonb[])`, [
            stream,
            [randomUUID()],
            ['Tick'],
            [JSON.stringify({ index })],
            ['{}'],
          ]);
          await pause(Math.random() * holdMs);
          await client.query('COMMIT');
        }
      } finally {
        await client.end();
      }
    }

    /** Opens and ends transactions with an id in another database until `done()`, as a busy neighbour would. */
    async function bystander(done: () => boolean): Promise<number> {
      const client = new pg.Client({ connectionString: neighbour!.url });
      await client.connect();
      let transactions = 0;
      try {
        while (!done()) {
          await client.query('BEGIN');
          await client.query('SELECT pg_current_xact_id()');
          await pause(Math.random() * 30);
          await client.query(Math.random() < 0.5 ? 'COMMIT' : 'ROLLBACK');
          transactions++;
        }
      } finally {
        await client.end();
      }
      return transactions;
    }

    it('lets a reader racing concurrent appenders see every committed event exactly once, in order, with no gap against a full read', async () => {
      const start = await store.lastCommittedPosition();
      const run = randomUUID().slice(0, 8);
      const fast = Array.from({ length: 6 }, (_, index) => `race-${run}-fast-${index}`);
      const slow = backend === 'postgres' ? Array.from({ length: 6 }, (_, index) => `race-${run}-slow-${index}`) : [];
      const mine = new Set([...fast, ...slow]);
      const perStream = 20;
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe(
        (event) => {
          if (mine.has(event.streamName)) seen.push(event);
        },
        { fromPosition: start, batchSize: 5 },
      );
      let writing = true;
      try {
        const bystanders = backend === 'postgres' ? Array.from({ length: 3 }, () => bystander(() => !writing)) : [];
        await Promise.all([
          ...fast.map(async (stream) => {
            for (let index = 0; index < perStream; index++) await store.append(stream, [{ type: 'Tick', data: { index } }], index - 1);
          }),
          // Transactions that take their position early and commit late, after later positions are readable.
          ...slow.map((stream) => slowAppender(stream, perStream, 25)),
        ]).finally(() => {
          writing = false;
        });
        const neighbourTransactions = (await Promise.all(bystanders)).reduce((sum, count) => sum + count, 0);
        if (backend === 'postgres') expect(neighbourTransactions).toBeGreaterThan(10);
        await eventually(
          () => seen.length,
          (count) => count >= mine.size * perStream,
          30_000,
        );
        await pause(100);
      } finally {
        writing = false;
        await subscription.stop();
      }
      const full = (await store.readAll({ fromPosition: start })).filter((event) => mine.has(event.streamName));
      expect(full).toHaveLength(mine.size * perStream);
      expect(seen.map((event) => event.id)).toEqual(full.map((event) => event.id));
    });

    if (backend === 'pglite') return;

    it('is not held by a transaction in another database: an append is readable at once while it stays open', async () => {
      const held = await openTransaction(neighbour!.url);
      try {
        const stream = `neighbour-${randomUUID()}`;
        const probe = new LogHorizonProbe(pool, systemClock, schema);
        for (let index = 0; index < 3; index++) {
          const { position } = await store.append(stream, [{ type: 'Tick', data: { index } }], index - 1);
          // Promptly, not at once: the service's own NOTIFY after an append is a short transaction of this database.
          const read = await eventually(
            () => store.readAll({ fromPosition: position - 1, maxCount: 1 }),
            (events) => events.length === 1,
            2_000,
          );
          expect(read.map((event) => event.position)).toEqual([position]);
          expect(await store.headPosition()).toBeGreaterThanOrEqual(position);
          expect(await store.countAfter(position - 1, 10)).toBeGreaterThanOrEqual(1);
          const horizon = await probe.read();
          expect(horizon.firstUnreadablePosition).toBeGreaterThan(position);
          expect(horizon.holder?.pid).not.toBe(held.pid);
        }
      } finally {
        await held.end();
      }
    });

    it('is held by a transaction in its own database (it could still append), which the probe names, and moves on when it ends', async () => {
      const held = await openTransaction(ledger!.url);
      try {
        const stream = `same-database-${randomUUID()}`;
        const { position } = await store.append(stream, [{ type: 'Tick', data: {} }], 'no_stream');
        expect(await store.readAll({ fromPosition: position - 1 })).toEqual([]);
        expect(await store.headPosition()).toBeLessThan(position);
        expect(await store.countAfter(position - 1, 10)).toBe(0);
        const horizon = await new LogHorizonProbe(pool, systemClock, schema).read();
        expect(horizon.firstUnreadablePosition).toBeLessThanOrEqual(position);
        expect(horizon.holder).toMatchObject({ pid: held.pid, database: ledger!.name });
        await held.end();
        expect((await store.readAll({ fromPosition: position - 1 })).map((event) => event.position)).toEqual([position]);
      } finally {
        await held.end();
      }
    });
  });
}
