// The PostgreSQL/PGlite append as one server-side call (event-store migration 2): upgrades, refusals that write nothing, positions.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/database/migrate.js';
import { DuplicateEventIdError, StreamNotFoundError, WrongExpectedRevisionError } from '../../src/events/eventStoreErrors.js';
import { eventStoreMigrations } from '../../src/events/postgres/eventStoreSchema.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { eventually } from '../support/eventually.js';
import { type TestDatabase, testBackends } from '../support/testDatabases.js';

const event = (index: number, id?: string) => ({ ...(id ? { id } : {}), type: 'Noted', data: { index }, metadata: { actor: 'test' } });

for (const backend of testBackends()) {
  describe(`one-statement append: ${backend.label}`, () => {
    let database: TestDatabase;
    let store: PostgresEventStore;

    beforeAll(async () => {
      database = await backend.open();
      // A log written before migration 2 existed: opening the store upgrades it in place.
      await migrate(database.pool, database.schema, 'event-store', eventStoreMigrations.slice(0, 1));
      await database.pool.query(`INSERT INTO "${database.schema}".streams (stream_name, revision) VALUES ('old-stream', 1)`);
      await database.pool.query(
        `INSERT INTO "${database.schema}".events (position, stream_name, revision, event_id, type, data, metadata)
         VALUES (65537, 'old-stream', 0, $1, 'Noted', '{}', '{}'), (65538, 'old-stream', 1, $2, 'Noted', '{}', '{}')`,
        [randomUUID(), randomUUID()],
      );
      store = await PostgresEventStore.open(database.pool, { schema: database.schema });
    });
    afterAll(async () => {
      await store?.close();
      await database?.dispose();
    });

    /** How many append_to_streams calls wait on another transaction's lock, once one does (or after 30 s). */
    const appendsWaitingOnALock = async () =>
      Number(
        await eventually(
          async () =>
            (
              await database.pool.query<{ waiting: string }>(
                `SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%${database.schema}".append_to_streams%' AND pid <> pg_backend_pid()`,
              )
            ).rows[0]!.waiting,
          (count) => Number(count) === 1,
          30_000,
        ),
      );

    it('upgrades a log of the first schema and appends after its existing events', async () => {
      const applied = await database.pool.query<{ id: number }>(
        `SELECT id FROM "${database.schema}".schema_migrations WHERE component = 'event-store' ORDER BY id`,
      );
      expect(applied.rows.map((row) => Number(row.id))).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await store.append('old-stream', [event(2)], 1)).toMatchObject({ nextExpectedRevision: 2 });
      expect((await store.readStream('old-stream')).map((recorded) => recorded.revision)).toEqual([0, 1, 2]);
    });

    it('gives the events of one append consecutive positions after everything before it', async () => {
      const stream = `positions-${randomUUID()}`;
      const first = await store.append(stream, [event(0)], 'no_stream');
      const second = await store.append(stream, [event(1), event(2), event(3)], 0);
      const positions = (await store.readStream(stream)).map((recorded) => recorded.position);
      expect(positions[0]).toBe(first.position);
      expect(positions.slice(1)).toEqual([second.position - 2, second.position - 1, second.position]);
      expect(positions[1]!).toBeGreaterThan(positions[0]!);
    });

    it('refuses a wrong expected revision on a missing stream without creating it', async () => {
      const stream = `refused-${randomUUID()}`;
      const refused = await store.append(stream, [event(0)], 3).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WrongExpectedRevisionError);
      expect((refused as WrongExpectedRevisionError).actual).toBe(-1);
      await expect(store.readStream(stream)).rejects.toBeInstanceOf(StreamNotFoundError);
      expect(await store.append(stream, [event(0)], 'no_stream')).toMatchObject({ nextExpectedRevision: 0 });
    });

    it('refuses event ids already stored by another append, writing nothing', async () => {
      const id = randomUUID();
      await store.append(`first-${randomUUID()}`, [event(0, id)], 'no_stream');
      const other = `second-${randomUUID()}`;
      await expect(store.append(other, [event(0, id)], 'no_stream')).rejects.toBeInstanceOf(DuplicateEventIdError);
      await expect(store.readStream(other)).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('answers a retry of a stored append with its original result, marked as already stored, even after later appends', async () => {
      const stream = `retry-${randomUUID()}`;
      const batch = [event(0, randomUUID()), event(1, randomUUID())];
      const first = await store.append(stream, batch, 'no_stream');
      await store.append(stream, [event(2)], 1);
      expect(await store.append(stream, batch, 'no_stream')).toEqual({ ...first, alreadyStored: true });
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    // PGlite has one connection: no append can run beside another there.
    if (backend.label === 'postgres')
      it('undoes an append to several streams when another append creates one of its new streams meanwhile', async () => {
        const [first, second] = [`a-${randomUUID()}`, `b-${randomUUID()}`];
        const other = await database.pool.connect();
        try {
          await other.query('BEGIN');
          await other.query(`SELECT * FROM "${database.schema}".append_events($1, 'no_stream', NULL, false, $2::uuid[], '{Noted}', '{"{}"}', '{"{}"}')`, [
            second,
            [randomUUID()],
          ]);
          // Creates `first`, then waits on the other transaction's row for `second`.
          const appending = store
            .appendToStreams([
              { streamName: first, events: [event(0)], expectedRevision: 'no_stream' },
              { streamName: second, events: [event(0)], expectedRevision: 'no_stream' },
            ])
            .catch((error: unknown) => error);
          expect(await appendsWaitingOnALock()).toBe(1);
          await other.query('COMMIT');
          const refused = await appending;
          expect(refused).toBeInstanceOf(WrongExpectedRevisionError);
          expect(refused).toMatchObject({ streamName: second, expected: 'no_stream', actual: 0 });
          await expect(store.readStream(first)).rejects.toBeInstanceOf(StreamNotFoundError);
          expect(await store.readStream(second)).toHaveLength(1);
        } finally {
          other.release();
        }
      });

    if (backend.label === 'postgres')
      it('orders two appends that each rest on the stream the other appends to: the second waits, then is refused', async () => {
        const [first, second] = [`a-${randomUUID()}`, `b-${randomUUID()}`];
        await store.appendToStreams([
          { streamName: first, events: [event(0)], expectedRevision: 'no_stream' },
          { streamName: second, events: [event(0)], expectedRevision: 'no_stream' },
        ]);
        const other = await database.pool.connect();
        try {
          // Appends to `first` on the condition that `second` stands at 0, its transaction still open.
          await other.query('BEGIN');
          await other.query(
            `SELECT * FROM "${database.schema}".append_to_streams($1::text[], '{exact,exact}', '{0,0}', '{1,0}', false, $2::uuid[], '{Noted}', '{"{}"}', '{"{}"}')`,
            [[first, second], [randomUUID()]],
          );
          // Appends to `second` on the condition that `first` stands at 0: true until the other one commits.
          const appending = store
            .appendToStreams([
              { streamName: second, events: [event(1)], expectedRevision: 0 },
              { streamName: first, events: [], expectedRevision: 0 },
            ])
            .catch((error: unknown) => error);
          expect(await appendsWaitingOnALock()).toBe(1);
          await other.query('COMMIT');
          const refused = await appending;
          expect(refused).toBeInstanceOf(WrongExpectedRevisionError);
          expect(refused).toMatchObject({ streamName: first, expected: 0, actual: 1 });
          expect(await store.readStream(second)).toHaveLength(1);
        } finally {
          other.release();
        }
      });

    if (backend.label === 'postgres')
      it('answers a retry as stored when its first attempt, running beside it, creates the streams and commits first', async () => {
        const [first, second] = [`a-${randomUUID()}`, `b-${randomUUID()}`];
        const ids = [randomUUID(), randomUUID()];
        const attempt = () =>
          store.appendToStreams([
            { streamName: first, events: [event(0, ids[0])], expectedRevision: 'no_stream' },
            { streamName: second, events: [event(1, ids[1])], expectedRevision: 'no_stream' },
          ]);
        const other = await database.pool.connect();
        try {
          // The first attempt, its transaction still open.
          await other.query('BEGIN');
          const firstAttempt = await other.query<{ event_position: string }>(
            `SELECT * FROM "${database.schema}".append_to_streams($1::text[], '{no_stream,no_stream}', '{NULL,NULL}', '{1,1}', true, $2::uuid[], '{Noted,Noted}', $3::jsonb[], $4::jsonb[])`,
            [
              [first, second],
              ids,
              [JSON.stringify({ index: 0 }), JSON.stringify({ index: 1 })],
              [JSON.stringify({ actor: 'test' }), JSON.stringify({ actor: 'test' })],
            ],
          );
          const retrying = attempt().catch((error: unknown) => error);
          expect(await appendsWaitingOnALock()).toBe(1);
          await other.query('COMMIT');
          const retried = await retrying;
          expect(retried).toEqual([
            expect.objectContaining({ nextExpectedRevision: 0, alreadyStored: true }),
            expect.objectContaining({ nextExpectedRevision: 0, alreadyStored: true }),
          ]);
          expect(Math.max(...(retried as Array<{ position: number }>).map((result) => result.position))).toBe(
            Math.max(...firstAttempt.rows.map((row) => Number(row.event_position))),
          );
          expect(await store.readStream(first)).toHaveLength(1);
          expect(await store.readStream(second)).toHaveLength(1);
        } finally {
          other.release();
        }
      });

    it('reads an empty range of an existing stream as no events, and a missing stream as not found', async () => {
      const stream = `ranges-${randomUUID()}`;
      await store.append(stream, [event(0), event(1)], 'no_stream');
      expect(await store.readStream(stream, { fromRevision: 2 })).toEqual([]);
      expect((await store.readStream(stream, { direction: 'backwards', maxCount: 1 })).map((recorded) => recorded.revision)).toEqual([1]);
      await expect(store.readStream(`missing-${randomUUID()}`, { fromRevision: 2 })).rejects.toBeInstanceOf(StreamNotFoundError);
    });
  });
}
