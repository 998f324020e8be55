// A keyed first attempt's claim made in its first append's statement: the claim and the append commit together, a key
// already taken appends nothing, a refused expectation keeps the claim for the decision decided again, and two
// attempts of one request racing on PostgreSQL write once.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { SqlPool } from '../../src/database/sqlPool.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import type { EventStore } from '../../src/events/eventStore.js';
import { AppendClaimTakenError } from '../../src/events/eventStoreErrors.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { UpcastingEventStore } from '../../src/events/upcasting/upcastingEventStore.js';
import { IdempotencyStore } from '../../src/idempotency/idempotencyStore.js';
import { sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { keyed, sessionStreams } from '../support/sessionStreams.js';
import { type TestDatabase, testBackends } from '../support/testDatabases.js';
import { waitUntil } from '../support/waitUntil.js';

interface KeyStatements {
  pool: SqlPool;
  count: () => number;
  /** The last append that carried a claim, as sent. */
  lastClaimingAppend?: { text: string; params: readonly unknown[] };
  /** Called before an append that carries a claim is sent. */
  beforeClaimingAppend?: () => void;
}

/** Counts the statements sent through a pool that touch the key table. */
function countingKeyStatements(pool: SqlPool): KeyStatements {
  let count = 0;
  const statements: KeyStatements = { pool, count: () => count };
  statements.pool = new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (text: string, params?: readonly unknown[]) => {
        if (text.includes('idempotency_keys')) count++;
        if (text.includes('CROSS JOIN LATERAL')) {
          statements.lastClaimingAppend = { text, params: params ?? [] };
          statements.beforeClaimingAppend?.();
        }
        return target.query(text, params);
      };
    },
  });
  return statements;
}

interface PlanNode {
  'Node Type': string;
  'Function Call'?: string;
  'CTE Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

for (const backend of testBackends()) {
  describe(`a key claimed with the first append: ${backend.label}`, () => {
    let database: TestDatabase;
    let store: EventStore;
    let keys: IdempotencyStore;
    let counter: ReturnType<typeof countingKeyStatements>;
    const clock = new ManualClock(new Date('2026-06-16T09:00:00Z'));
    const metadata = { actor: 'test' };
    // Two service instances: each its own cache, one log and one key table.
    let first: StreamStateStore;
    let second: StreamStateStore;

    beforeAll(async () => {
      database = await backend.open();
      counter = countingKeyStatements(database.pool);
      store = new UpcastingEventStore(await PostgresEventStore.open(counter.pool, { schema: database.schema }));
      keys = new IdempotencyStore(counter.pool, database.schema, clock, { ttlMs: 3_600_000, leaseMs: 10_000, soleOwner: false, claimsWithAppends: true });
      await keys.open();
      first = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 100 }), clock);
      second = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 100 }), clock);
    });
    afterAll(async () => {
      await store?.close();
      await database?.dispose();
    });

    const { createdSession, recordTurn: turn } = sessionStreams(clock, metadata);
    const recordTurn = (streams: StreamStateStore, sessionId: string, text: string) =>
      turn(streams, sessionId, text, { autoCheckpoint: false, maxTranscriptMessages: 1_000, maxSessionTokens: 1_000_000 });

    const keyRow = async (key: string) =>
      (
        await database.pool.query<{ nonce: string; attempts: number; status: number | null; lease_until: Date | null }>(
          `SELECT nonce, attempts, status, lease_until FROM "${database.schema}".idempotency_keys WHERE tenant = '' AND idempotency_key = $1`,
          [key],
        )
      ).rows;
    const turns = async (sessionId: string) =>
      (await store.readStream(sessionStreamName(sessionId))).filter((event) => event.type === 'TurnRecorded').map((event) => event.id);

    it('claims the key in the append statement: one statement on the key table, the claim row and the events commit together', async () => {
      const sessionId = await createdSession(first);
      const key = randomUUID();
      const pending = keys.claimWithFirstAppend('', key, 'fingerprint');
      expect(await keyRow(key)).toHaveLength(0);
      const before = counter.count();
      const result = await keyed(pending.claim.write, () => recordTurn(first, sessionId, 'claimed with its append'));
      expect(result.written).toBe(true);
      expect(pending.held).toBe(true);
      expect(pending.claim.write.pendingClaim).toBeUndefined();
      expect(counter.count() - before).toBe(1);
      const [row] = await keyRow(key);
      expect(row).toMatchObject({ nonce: pending.claim.nonce, attempts: 1, status: null });
      expect(row!.lease_until).not.toBeNull();
      // The events carry the ids the claim's nonce derives: a take-over of this claim finds them.
      expect(await turns(sessionId)).toEqual([pending.claim.write.eventId(sessionStreamName(sessionId), 0, 0)]);
      expect(await keys.complete(pending.claim, { status: 201, body: '{}' })).toBeUndefined();
    });

    it('plans the append inside a loop over the claim row: the call takes its stream names from that row, so no row is no call', async () => {
      const sessionId = await createdSession(first);
      const pending = keys.claimWithFirstAppend('', randomUUID(), 'fingerprint');
      await keyed(pending.claim.write, () => recordTurn(first, sessionId, 'planned'));
      const sent = counter.lastClaimingAppend!;
      expect(sent).toBeDefined();
      const { rows } = await database.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> | string }>(
        `EXPLAIN (VERBOSE, FORMAT JSON) ${sent.text}`,
        sent.params,
      );
      const explained = rows[0]!['QUERY PLAN'];
      const plan = (typeof explained === 'string' ? (JSON.parse(explained) as Array<{ Plan: PlanNode }>) : explained)[0]!.Plan;
      expect(plan['Node Type']).toBe('Nested Loop');
      // The claim's INSERT is the CTE's own plan (an InitPlan); the loop's outer side scans its rows, the inner calls the function.
      const outer = plan.Plans!.find((node) => node['Parent Relationship'] === 'Outer');
      const inner = plan.Plans!.find((node) => node['Parent Relationship'] === 'Inner');
      expect(outer).toMatchObject({ 'Node Type': 'CTE Scan', 'CTE Name': 'claim' });
      expect(inner!['Node Type']).toBe('Function Scan');
      expect(inner!['Function Call']).toMatch(/claim\.claimed/);
    });

    it('renews the claim at once when its statement waited a good part of the lease before it committed', async () => {
      const sessionId = await createdSession(first);
      const key = randomUUID();
      const pending = keys.claimWithFirstAppend('', key, 'fingerprint');
      // The lease is set when the statement is built; the statement then waits (a pool, a stream's lock) 9 of its 10 s.
      counter.beforeClaimingAppend = () => clock.advance(9_000);
      try {
        await keyed(pending.claim.write, () => recordTurn(first, sessionId, 'after a long wait'));
      } finally {
        counter.beforeClaimingAppend = undefined;
      }
      expect(pending.held).toBe(true);
      // Renewed from when it was made: a duplicate waiting on the key does not find the lease run out a second later.
      await waitUntil(async () => new Date((await keyRow(key))[0]!.lease_until!).getTime() >= clock.now().getTime() + 10_000, 'the claim renewed', 10_000);
      expect(await keys.complete(pending.claim, { status: 201, body: '{}' })).toBeUndefined();
    });

    it('appends nothing when the key is taken already: AppendClaimTakenError, the stream and the key row as they were', async () => {
      const sessionId = await createdSession(first);
      const key = randomUUID();
      const holder = await keys.claim('', key, 'fingerprint');
      expect(holder.kind).toBe('run');
      const revision = (await store.readStream(sessionStreamName(sessionId))).length - 1;
      const pending = keys.claimWithFirstAppend('', key, 'fingerprint');
      await expect(keyed(pending.claim.write, () => recordTurn(first, sessionId, 'never written'))).rejects.toBeInstanceOf(AppendClaimTakenError);
      expect(pending.held).toBe(false);
      expect(await turns(sessionId)).toEqual([]);
      expect((await store.readStream(sessionStreamName(sessionId))).length - 1).toBe(revision);
      expect(await keyRow(key)).toMatchObject([{ nonce: holder.kind === 'run' ? holder.claim.nonce : '', attempts: 1, status: null }]);
      // The cached state was not dropped for it: the next turn is decided on it and appended.
      expect((await recordTurn(first, sessionId, 'after the refused claim')).written).toBe(true);
    });

    it('a refused expectation keeps the claim made; the decision decided again appends once and claims nothing twice', async () => {
      const sessionId = await createdSession(first);
      await recordTurn(first, sessionId, 'cached by the first instance');
      // Another instance moves the stream: the first one's cached state is behind, and its append is refused once.
      await recordTurn(second, sessionId, 'written by the second instance');
      const key = randomUUID();
      const pending = keys.claimWithFirstAppend('', key, 'fingerprint');
      const before = counter.count();
      const result = await keyed(pending.claim.write, () => recordTurn(first, sessionId, 'decided twice, written once'));
      expect(result.written).toBe(true);
      expect(pending.held).toBe(true);
      // The refused statement made the claim, the second append carried none.
      expect(counter.count() - before).toBe(1);
      expect(await keyRow(key)).toMatchObject([{ nonce: pending.claim.nonce, attempts: 1, status: null }]);
      const texts = (await store.readStream(sessionStreamName(sessionId)))
        .filter((event) => event.type === 'TurnRecorded')
        .map((event) => (event.data as { messages: Array<{ content: string }> }).messages[0]!.content);
      expect(texts).toEqual(['cached by the first instance', 'written by the second instance', 'decided twice, written once']);
    });

    it('an answer of an attempt that appended nothing is recorded as its claim, unless the key was taken meanwhile', async () => {
      const key = randomUUID();
      const refused = keys.claimWithFirstAppend('', key, 'fingerprint');
      expect(await keys.recordAnswer(refused, 'fingerprint', { status: 404, body: '{"error":{}}' })).toBe(true);
      expect(await keys.claim('', key, 'fingerprint')).toEqual({ kind: 'replay', answer: { status: 404, body: '{"error":{}}' } });
      const duplicate = keys.claimWithFirstAppend('', key, 'fingerprint');
      expect(await keys.recordAnswer(duplicate, 'fingerprint', { status: 200, body: '{}' })).toBe(false);
      expect(await keys.claim('', key, 'fingerprint')).toEqual({ kind: 'replay', answer: { status: 404, body: '{"error":{}}' } });
    });

    if (backend.label !== 'postgres') return;

    it('two attempts of one request racing on two instances: the second waits for the first, finds the key taken and writes nothing', async () => {
      const sessionId = await createdSession(first);
      await recordTurn(second, sessionId, 'both instances cache the session');
      await recordTurn(first, sessionId, 'the first instance is current');
      await second.load(sessionStreamName(sessionId), sessionDecider);
      const key = randomUUID();
      const blocker = new pg.Client({ connectionString: database.connectionString });
      await blocker.connect();
      try {
        // Holding the stream's row keeps the first attempt's statement open after its claim insert.
        await blocker.query('BEGIN');
        await blocker.query(`SELECT revision FROM "${database.schema}".streams WHERE stream_name = $1 FOR UPDATE`, [sessionStreamName(sessionId)]);
        const one = keys.claimWithFirstAppend('', key, 'fingerprint');
        const two = keys.claimWithFirstAppend('', key, 'fingerprint');
        // Not on the blocker's connection: inside its transaction pg_stat_activity stays as first read.
        const waiting = async () =>
          Number(
            (
              await database.pool.query<{ waiting: string }>(
                `SELECT count(*) AS waiting FROM pg_stat_activity WHERE state = 'active' AND wait_event_type = 'Lock' AND query LIKE 'WITH claim AS (INSERT INTO "${database.schema}".idempotency_keys%'`,
              )
            ).rows[0]!.waiting,
          );
        const firstAttempt = keyed(one.claim.write, () => recordTurn(first, sessionId, 'raced'));
        await waitUntil(async () => (await waiting()) === 1, 'the first attempt waiting on the stream', 10_000);
        const secondAttempt = keyed(two.claim.write, () => recordTurn(second, sessionId, 'raced')).then(
          () => 'written' as const,
          (error: unknown) => error,
        );
        await waitUntil(async () => (await waiting()) === 2, 'the second attempt waiting on the key', 10_000);
        await blocker.query('COMMIT');
        expect((await firstAttempt).written).toBe(true);
        expect(await secondAttempt).toBeInstanceOf(AppendClaimTakenError);
        expect([one.held, two.held]).toEqual([true, false]);
        expect(await keyRow(key)).toMatchObject([{ nonce: one.claim.nonce }]);
        const texts = (await store.readStream(sessionStreamName(sessionId)))
          .filter((event) => event.type === 'TurnRecorded')
          .map((event) => (event.data as { messages: Array<{ content: string }> }).messages[0]!.content);
        expect(texts.filter((text) => text === 'raced')).toHaveLength(1);
      } finally {
        await blocker.end();
      }
    });
  });
}
