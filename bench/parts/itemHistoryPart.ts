// Item histories at length: appending one item and reading the newest 50 of a 100-item vs a 100,000-item session, in
// process through the service's own item writes and reads (in-memory PGlite; PostgreSQL in a schema dropped afterwards).
// The histories are seeded through the store in batches, as the service's events: building them is not what is measured.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../../src/clock.js';
import { migrate, quoteIdentifier } from '../../src/database/migrate.js';
import { PglitePool } from '../../src/database/pglitePool.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import type { SqlPool } from '../../src/database/sqlPool.js';
import { approximateJsonSize } from '../../src/events/approximateJsonSize.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import type { NewEvent } from '../../src/events/eventStore.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { SqlSnapshotStore } from '../../src/events/postgres/sqlSnapshotStore.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { stateHasTurnInFlight } from '../../src/app/stateHasTurnInFlight.js';
import { appendItems } from '../../src/modules/agentSessions/commands/appendItems.js';
import type { ItemWriteContext } from '../../src/modules/agentSessions/commands/itemWriteContext.js';
import { agentSessionId } from '../../src/modules/agentSessions/domain/agentSessionId.js';
import { decideAppendItems } from '../../src/modules/agentSessions/domain/decideAppendItems.js';
import { decideCreateAgentSession } from '../../src/modules/agentSessions/domain/decideCreateAgentSession.js';
import { walkLiveItems } from '../../src/modules/agentSessions/items/liveItems.js';
import { sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { readModelMigrations } from '../../src/projections/readModelSchema.js';
import type { BenchContext } from '../benchContext.js';
import { atMostTimes, type Figure } from '../report.js';
import type { ServiceBackend } from '../service/serviceStorage.js';

const SMALL = 100;
const LARGE = Number(process.env.BENCH_ITEMS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const APPENDS = 200;
const READS = 200;
const SEED_BATCH = 1_000;
const clock = new ManualClock(new Date('2026-12-05T09:00:00Z'));
const metadata = { actor: 'bench' };

/** An agent framework's item of a typical size (a message with text, about 400 bytes as JSON). */
function item(n: number) {
  return {
    id: `msg_${n.toString(16).padStart(12, '0')}`,
    type: 'message',
    role: n % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'output_text', text: `item ${n}: ${'the agent read the file, ran the tests and reported back. '.repeat(5)}` }],
  };
}

/** The session and its items, decided as the service decides them and appended SEED_BATCH events at a time. */
async function seedHistory(store: PostgresEventStore, sessionId: string, externalId: string, items: number): Promise<void> {
  const streamName = sessionStreamName(sessionId);
  let state = sessionDecider.initialState();
  const created = decideCreateAgentSession(
    { type: 'CreateAgentSession', sessionId, namespace: 'bench', externalId, agentName: 'bench', metadata: {}, now: clock.now().toISOString() },
    state,
  );
  state = created.reduce(sessionDecider.evolve, state);
  let revision = (await store.append(streamName, created as unknown as NewEvent[], 'no_stream')).nextExpectedRevision;
  for (let first = 0; first < items; first += SEED_BATCH) {
    const batch = Array.from({ length: Math.min(SEED_BATCH, items - first) }, (_, offset) => ({
      itemId: item(first + offset).id,
      item: item(first + offset),
      occurrence: 0,
    }));
    const events = decideAppendItems({ type: 'AppendItems', streamName, items: batch, now: clock.now().toISOString() }, state);
    state = events.reduce(sessionDecider.evolve, state);
    revision = (await store.append(streamName, events as unknown as NewEvent[], revision)).nextExpectedRevision;
  }
}

function serviceCache(): BoundedStateCache {
  return new BoundedStateCache({
    maxEntries: 10_000,
    maxBytes: 268_435_456,
    idleTtlMs: 3_600_000,
    isInFlight: stateHasTurnInFlight,
    sizeOf: approximateJsonSize,
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

interface Figures {
  append: number;
  appendWithoutId: number;
  readNewest: number;
  readBefore: number;
  stateBytes: number;
}

async function measure(store: PostgresEventStore, snapshots: SqlSnapshotStore, externalId: string, items: number): Promise<Figures> {
  const sessionId = agentSessionId('bench', externalId, 0);
  await seedHistory(store, sessionId, externalId, items);
  const streams = new StreamStateStore(store, serviceCache(), clock, { snapshots, snapshotEvery: 500 });
  const context: ItemWriteContext = { streams, store, now: () => clock.now().toISOString() };
  // The first load folds the whole stream and leaves a snapshot; every later one is the service's warm path.
  const loaded = await streams.load(sessionStreamName(sessionId), sessionDecider);
  const stateBytes = JSON.stringify(loaded.state).length;
  let next = items;
  const append = (withId: boolean) => {
    const added = item(next++);
    return appendItems(context, sessionId, undefined, { items: [added], itemIds: [withId ? added.id : null] }, metadata);
  };
  const head = async () => {
    const { state, revision } = await streams.load(sessionStreamName(sessionId), sessionDecider);
    return { sessionId, fromRevision: revision, below: state.itemCount };
  };
  for (let round = 0; round < ROUNDS; round++) await append(true);
  const appendTimes: number[] = [];
  for (let round = 0; round < APPENDS; round++) appendTimes.push(await timed(() => append(true)));
  const withoutId: number[] = [];
  for (let round = 0; round < APPENDS / 2; round++) withoutId.push(await timed(() => append(false)));
  // A read as GET /v1/sessions/{id}/items?limit=50 makes it: the session's state, then the walk back from its end.
  const readNewest: number[] = [];
  for (let round = 0; round < READS; round++) readNewest.push(await timed(async () => walkLiveItems(store, undefined, await head(), { limit: 50 })));
  // The next page back: from the oldest item of the newest page.
  const page = await walkLiveItems(store, undefined, await head(), { limit: 50 });
  const readBefore: number[] = [];
  for (let round = 0; round < READS / 2; round++) readBefore.push(await timed(() => walkLiveItems(store, undefined, page.next!, { limit: 50 })));
  return { append: median(appendTimes), appendWithoutId: median(withoutId), readNewest: median(readNewest), readBefore: median(readBefore), stateBytes };
}

export async function itemHistoryPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend)));
  return figures;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend): Promise<Figure[]> {
  const postgresUrl = backend === 'postgres' ? context.options.postgresUrl : undefined;
  const schema = postgresUrl ? `bench_items_${randomBytes(4).toString('hex')}` : 'ledger';
  const pool: SqlPool = postgresUrl ? new PostgresPool({ connectionString: postgresUrl, max: 4 }) : await PglitePool.open();
  try {
    const store = await PostgresEventStore.open(pool, { schema });
    await migrate(pool, schema, 'read-models', readModelMigrations);
    const snapshots = new SqlSnapshotStore(pool, schema);
    context.log(`items, ${backend}: a ${SMALL}-item and a ${LARGE.toLocaleString('en-US')}-item history (${APPENDS} appends, ${READS} reads each)…`);
    // A first pass warms the JIT and the database up; its figures are dropped.
    await measure(store, snapshots, 'warmup', SMALL);
    const small = await measure(store, snapshots, 'small', SMALL);
    const large = await measure(store, snapshots, 'large', LARGE);
    const figure = (name: string, pick: (figures: Figures) => number, note?: string): Figure => {
      const ratio = pick(large) / pick(small);
      return {
        part: 'items',
        backend,
        name: `${name}, ${LARGE.toLocaleString('en-US')} items`,
        value: pick(large),
        unit: 'ms',
        baseline: { name: `${SMALL} items`, value: pick(small) },
        ratio,
        ratioStyle: 'times',
        verdict: atMostTimes(ratio, 1.5, `${SMALL} items`),
        note,
      };
    };
    return [
      figure(`append one item with an id (median of ${APPENDS})`, (f) => f.append, 'load + id look-up + append'),
      figure(`append one item without an id (median of ${APPENDS / 2})`, (f) => f.appendWithoutId),
      figure(`read the newest 50 items (median of ${READS})`, (f) => f.readNewest, 'load + one backwards read'),
      figure(`read the 50 before those (median of ${READS / 2})`, (f) => f.readBefore),
      {
        part: 'items',
        backend,
        name: `the session's folded state (what the service holds in memory), ${LARGE.toLocaleString('en-US')} items`,
        value: large.stateBytes,
        unit: 'bytes',
        baseline: { name: `${SMALL} items`, value: small.stateBytes },
        ratio: large.stateBytes / small.stateBytes,
        ratioStyle: 'times',
        verdict: atMostTimes(large.stateBytes / small.stateBytes, 1.5, `${SMALL} items`),
        note: 'JSON length of the cached state: a count, never the items',
      },
    ];
  } finally {
    if (postgresUrl) await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    await pool.end();
  }
}
