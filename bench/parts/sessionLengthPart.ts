// Part 3, growth of one session: load, turn append and rollback of a 10-turn vs a 10,000-turn session, in process
// through StreamStateStore as the service uses it (in-memory PGlite; PostgreSQL in a schema dropped afterwards).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../../src/clock.js';
import { migrate, quoteIdentifier } from '../../src/database/migrate.js';
import { PglitePool } from '../../src/database/pglitePool.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import type { SqlPool } from '../../src/database/sqlPool.js';
import type { NewEvent } from '../../src/events/eventStore.js';
import { approximateJsonSize } from '../../src/events/approximateJsonSize.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import { stateHasTurnInFlight } from '../../src/app/stateHasTurnInFlight.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { SqlSnapshotStore } from '../../src/events/postgres/sqlSnapshotStore.js';
import { type SessionStreamEvent, sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { rollbackTarget, type SessionCommand, sessionDecider, type SessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { lastItem } from '../../src/modules/sessions/domain/chunkedList.js';
import { readModelMigrations } from '../../src/projections/readModelSchema.js';
import type { BenchContext } from '../benchContext.js';
import { atMostTimes, type Figure } from '../report.js';
import type { ServiceBackend } from '../service/serviceStorage.js';

const SMALL = 10;
const LARGE = Number(process.env.BENCH_TURNS ?? 10_000);
const SNAPSHOT_EVERY = Number(process.env.SNAPSHOT_EVERY ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const clock = new ManualClock(new Date('2026-06-16T09:00:00Z'));
const metadata = { actor: 'bench' };

function turnCommand(turn: number): SessionCommand {
  clock.advance(1_000);
  return {
    type: 'RecordTurn',
    messages: [
      { role: 'user', content: `question ${turn}: what should the agent look at next, and why?` },
      { role: 'assistant', content: `answer ${turn}: ${'the agent reads the file, runs the tests and reports back. '.repeat(3)}` },
    ],
    usage: { inputTokens: 1_200, outputTokens: 180, cacheReadTokens: 900, cacheWriteTokens: 0, lastPromptTokens: 1_200, costUsd: 0.0042 },
    status: 'completed',
    autoCheckpoint: true,
    now: clock.now().toISOString(),
  };
}

/** Decides the session's history in memory and appends it in large batches: building it is not what is measured. */
async function buildSession(store: PostgresEventStore, sessionId: string, turns: number): Promise<void> {
  const stream = sessionStreamName(sessionId);
  const origin = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: sessionId });
  let state = sessionDecider.initialState();
  let pending: SessionStreamEvent[] = [];
  let revision = -1;
  const flush = async () => {
    const appended = await store.append(stream, pending as unknown as NewEvent[], revision < 0 ? 'no_stream' : revision);
    revision = appended.nextExpectedRevision;
    pending = [];
  };
  const decide = (command: SessionCommand) => {
    const events = sessionDecider.decide(command, state);
    state = events.reduce(sessionDecider.evolve, state);
    pending.push(...events);
  };
  decide({ type: 'CreateSession', sessionId, sessionKey: `agent:main:telegram:dm:${sessionId}`, origin, reason: 'new', now: clock.now().toISOString() });
  for (let turn = 1; turn <= turns; turn++) {
    decide(turnCommand(turn));
    if (pending.length >= 1_000) await flush();
  }
  if (pending.length > 0) await flush();
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function medianOf(rounds: number, work: (round: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) times.push(await timed(() => work(round)));
  return median(times);
}

interface Figures {
  events: number;
  snapshotBytes: number;
  snapshotWrite: number;
  warmLoad: number;
  coldLoadSnapshot: number;
  coldLoadReplay: number;
  append: number;
  appendMean: number;
  rollbackRecent: number;
  rollbackFirst: number;
  rollForward: number;
  rollbackRecentAfterForward: number;
  rolledBackBytes: number;
  rolledForwardBytes: number;
}

const APPENDS = 200;

/** The cache as src/app/appModule.ts builds it with the default settings: its size estimate is part of every load's cost. */
function serviceCache(): BoundedStateCache {
  return new BoundedStateCache({
    maxEntries: 10_000,
    maxBytes: 268_435_456,
    idleTtlMs: 3_600_000,
    isInFlight: stateHasTurnInFlight,
    sizeOf: approximateJsonSize,
  });
}

async function measure(store: PostgresEventStore, snapshots: SqlSnapshotStore, sessionId: string, turns: number): Promise<Figures> {
  const stream = sessionStreamName(sessionId);
  await buildSession(store, sessionId, turns);
  const withSnapshots = (cache = serviceCache()) => new StreamStateStore(store, cache, clock, { snapshots, snapshotEvery: SNAPSHOT_EVERY });
  const live = withSnapshots();
  // The first load replays everything and, once the stream is SNAPSHOT_EVERY events long, leaves a snapshot behind.
  const first = await live.load(stream, sessionDecider);
  const snapshot = await snapshots.read(stream, sessionDecider.snapshotVersion);

  const warmLoad = await medianOf(ROUNDS * 3, () => live.load(stream, sessionDecider));
  const coldLoadSnapshot = await medianOf(ROUNDS, () => withSnapshots().load(stream, sessionDecider));
  const coldLoadReplay = await medianOf(Math.min(ROUNDS, 3), () => new StreamStateStore(store, serviceCache(), clock).load(stream, sessionDecider));
  // What a snapshot costs when one falls due (every SNAPSHOT_EVERY events): the write of the whole folded state.
  const snapshotWrite = await medianOf(3, (round) =>
    snapshots.write({ streamName: `${stream}-copy`, version: sessionDecider.snapshotVersion, revision: round, position: first.position, state: first.state }),
  );

  const state = first.state;
  const firstCheckpoint = state.checkpoints[0]![0]!.checkpointId;
  const recentCheckpoint = lastItem(state.checkpoints)!.checkpointId;
  // As changeSession.ts's toCommand builds the command: the checkpoint's state replayed from the current one's.
  const rollBack = (checkpointId: string) =>
    live.handle(
      stream,
      sessionDecider,
      async (current: SessionState): Promise<SessionCommand> => {
        const target = rollbackTarget(current, checkpointId);
        const then = await live.loadAt(stream, sessionDecider, { revision: target.revision }, current);
        return { type: 'RollBack', checkpointId, restored: then.state, now: clock.now().toISOString() };
      },
      metadata,
    );
  const lastEventBytes = async () => JSON.stringify((await store.readStream(stream, { direction: 'backwards', maxCount: 1 }))[0]!.data).length;
  const rewind = () => live.handle(stream, sessionDecider, { type: 'RewindTranscript', turns: 1, now: clock.now().toISOString() }, metadata);
  // First the common case: a rewind of the last turn, undone by a rollback to the newest checkpoint (the session
  // stays as long as it is). Then back to the first checkpoint (a replay from revision 0) and forward again to the
  // newest, which leaves the session as big as it was. Rolling forward restores every message recorded since the
  // first checkpoint, so its event carries them all: that figure grows with the session by nature and is not
  // judged. Nor is a rewind undone right after such a roll forward: the messages it restored are copies of the
  // checkpoint's, so the rollback compares them one by one instead of skipping the chunks both states share.
  const recent: number[] = [];
  const oldest: number[] = [];
  const forward: number[] = [];
  const recentAfterForward: number[] = [];
  // As many rounds as the warm loads: a rollback that replays nothing costs about as little, and is as noisy.
  for (let round = 0; round < ROUNDS * 3; round++) {
    await rewind();
    recent.push(await timed(() => rollBack(recentCheckpoint)));
  }
  const rolledBackBytes = await lastEventBytes();
  let rolledForwardBytes = 0;
  for (let round = 0; round < Math.min(ROUNDS, 5); round++) {
    oldest.push(await timed(() => rollBack(firstCheckpoint)));
    forward.push(await timed(() => rollBack(recentCheckpoint)));
    if (round === 0) rolledForwardBytes = await lastEventBytes();
    await rewind();
    recentAfterForward.push(await timed(() => rollBack(recentCheckpoint)));
  }

  const appendTimes: number[] = [];
  for (let turn = 1; turn <= APPENDS; turn++) appendTimes.push(await timed(() => live.handle(stream, sessionDecider, turnCommand(turns + turn), metadata)));
  return {
    events: first.revision + 1,
    snapshotBytes: snapshot ? JSON.stringify(snapshot.state).length : 0,
    snapshotWrite,
    warmLoad,
    coldLoadSnapshot,
    coldLoadReplay,
    append: median(appendTimes),
    appendMean: appendTimes.reduce((sum, time) => sum + time, 0) / appendTimes.length,
    rollbackRecent: median(recent),
    rollbackFirst: median(oldest),
    rollForward: median(forward),
    rollbackRecentAfterForward: median(recentAfterForward),
    rolledBackBytes,
    rolledForwardBytes,
  };
}

export async function sessionLengthPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend)));
  return figures;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend): Promise<Figure[]> {
  const postgresUrl = backend === 'postgres' ? context.options.postgresUrl : undefined;
  const schema = postgresUrl ? `bench_sessions_${randomBytes(4).toString('hex')}` : 'ledger';
  const pool: SqlPool = postgresUrl ? new PostgresPool({ connectionString: postgresUrl, max: 4 }) : await PglitePool.open();
  try {
    const store = await PostgresEventStore.open(pool, { schema });
    await migrate(pool, schema, 'read-models', readModelMigrations);
    const snapshots = new SqlSnapshotStore(pool, schema);
    context.log(`sessions, ${backend}: a ${SMALL}-turn and a ${LARGE}-turn session (SNAPSHOT_EVERY=${SNAPSHOT_EVERY}, ${ROUNDS} rounds)…`);
    // A first pass warms the JIT and the database up; its figures are dropped.
    await measure(store, snapshots, 'bench_warmup', SMALL);
    const small = await measure(store, snapshots, 'bench_small', SMALL);
    const large = await measure(store, snapshots, 'bench_large', LARGE);
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
    const figure = (name: string, pick: (figures: Figures) => number, judged: boolean, note?: string): Figure => {
      const ratio = pick(large) / pick(small);
      return {
        part: 'sessions',
        backend,
        name: `${name}, ${LARGE.toLocaleString('en-US')} turns`,
        value: pick(large),
        unit: 'ms',
        baseline: { name: `${SMALL} turns`, value: pick(small) },
        ratio,
        ratioStyle: 'times',
        verdict: judged ? atMostTimes(ratio, 2, `${SMALL} turns`) : undefined,
        note,
      };
    };
    return [
      figure('session load, warm (cache + catch-up read)', (f) => f.warmLoad, true),
      figure('session load, cold from the snapshot', (f) => f.coldLoadSnapshot, false, `a cache miss: reads a ${kib(large.snapshotBytes)} snapshot`),
      figure('session load, cold full replay (no snapshot)', (f) => f.coldLoadReplay, false, `${large.events.toLocaleString('en-US')} events`),
      figure(`turn append (median of ${APPENDS})`, (f) => f.append, true, `mean ${large.appendMean.toFixed(1)} ms vs ${small.appendMean.toFixed(1)} ms`),
      figure('rollback to the first checkpoint', (f) => f.rollbackFirst, true),
      figure(
        'rollback to the newest checkpoint (undoing a rewind)',
        (f) => f.rollbackRecent,
        true,
        `RolledBack event ${kib(large.rolledBackBytes)} vs ${kib(small.rolledBackBytes)}`,
      ),
      figure(
        'roll forward from the first checkpoint to the newest',
        (f) => f.rollForward,
        false,
        `RolledBack event ${kib(large.rolledForwardBytes)} vs ${kib(small.rolledForwardBytes)}: every message restored`,
      ),
      figure(
        'rollback to the newest checkpoint, undoing a rewind right after a roll forward',
        (f) => f.rollbackRecentAfterForward,
        false,
        'messages compared one by one',
      ),
      figure(
        `snapshot write (every ${SNAPSHOT_EVERY} events)`,
        (f) => f.snapshotWrite,
        false,
        `${(large.snapshotWrite / SNAPSHOT_EVERY).toFixed(2)} ms per event amortised`,
      ),
    ];
  } finally {
    if (postgresUrl) await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    await pool.end();
  }
}
