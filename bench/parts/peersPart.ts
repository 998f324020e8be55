// Issue #33: the ledger over HTTP against what a team would pick instead, Google ADK's DatabaseSessionService and
// LangGraph's PostgresSaver in process, on the same PostgreSQL in one pass: the same three paths, 16 workers each.
import { randomBytes } from 'node:crypto';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import type { BenchContext } from '../benchContext.js';
import { inParallel } from '../measure.js';
import { PATH_NAMES, type PathName, type PeerLibrary } from '../peers/peerLibrary.js';
import { type PeerResults, peersFigures, type PeersPass } from '../peers/peersFigures.js';
import { type PathResult, runWorkers } from '../peers/runWorkers.js';
import type { Figure } from '../report.js';
import { BenchService } from '../service/benchService.js';
import type { LoadResult, LoadScenario } from '../service/loadScenario.js';
import { RAW_TRANSACTIONS, rawInsertRate } from '../service/rawInsertRate.js';
import { runLoad } from '../service/runLoad.js';
import { createServiceStorage, type ServiceBackend } from '../service/serviceStorage.js';

/** Sessions each contender creates before the clock starts: the turns and loads go to them. */
const WARM_SESSIONS = 100;

export async function peersPart(context: BenchContext): Promise<Figure[]> {
  const { options } = context;
  if (!options.postgresUrl)
    context.log(
      "peers: ADK's DatabaseSessionService and LangGraph's PostgresSaver need PostgreSQL (BENCH_DATABASE_URL=postgres://…); measuring the ledger alone",
    );
  else if (!options.backends.includes('postgres'))
    context.log('peers: the peers run in the PostgreSQL pass, which --backends leaves out; measuring the ledger alone');
  const passes: PeersPass[] = [];
  for (const backend of options.backends) passes.push(await measurePass(context, backend));
  return peersFigures(passes);
}

/** One side of the comparison: warmed up once, then measured path by path, interleaved with the others. */
interface Contender {
  name: string;
  warmUp(): Promise<void>;
  measure(path: PathName): Promise<PathResult>;
}

async function measurePass(context: BenchContext, backend: ServiceBackend): Promise<PeersPass> {
  const { options } = context;
  const clients = options.connections;
  const rawRate = async (when: string) => {
    context.log(`peers, ${backend}: raw one-row INSERT + COMMIT, ${clients} clients (${when})…`);
    const rate = await rawInsertRate(backend, options.postgresUrl, clients, RAW_TRANSACTIONS[backend]);
    context.log(`peers, ${backend}: raw ${rate.toFixed(0)} transactions/s`);
    return rate;
  };
  const before = await rawRate('before the service');
  const measured = await measureContenders(context, backend);
  return { ...measured, commits: { before, after: await rawRate('after the service') } };
}

/** The service on a fresh storage and, on PostgreSQL, the peers on schemas of their own: created, measured, removed. */
async function measureContenders(context: BenchContext, backend: ServiceBackend): Promise<Omit<PeersPass, 'commits'>> {
  const { options } = context;
  const clients = options.connections;
  const seconds = options.peerDurationSeconds;
  const warm = Math.max(WARM_SESSIONS, clients);
  const storage = await createServiceStorage(backend, options.postgresUrl, 'peers');
  const peerSchemas = backend === 'postgres' ? { adk: peerSchema('adk'), langGraph: peerSchema('langgraph') } : undefined;
  const libraries: Array<Pick<PeerLibrary<unknown>, 'name' | 'calls' | 'close'>> = [];
  const peers: Contender[] = [];
  let service: BenchService | undefined;
  try {
    service = await BenchService.start(storage.env);
    await service.waitForProjections(600_000);
    const ledger = ledgerOverHttp(service, clients, seconds, warm);
    if (peerSchemas) {
      const postgresUrl = options.postgresUrl!;
      await withAdminPool(postgresUrl, async (pool) => {
        for (const schema of Object.values(peerSchemas)) await pool.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
      });
      // Loaded here only: the other parts never load the peers' libraries.
      const { openAdkPeer } = await import('../peers/adkPeer.js');
      const { openLangGraphPeer } = await import('../peers/langGraphPeer.js');
      const adk = await openAdkPeer(postgresUrl, peerSchemas.adk);
      libraries.push(adk);
      peers.push(inProcess(adk, clients, seconds, warm));
      const langGraph = await openLangGraphPeer(postgresUrl, peerSchemas.langGraph);
      libraries.push(langGraph);
      peers.push(inProcess(langGraph, clients, seconds, warm));
    }
    const contenders = [ledger, ...peers];
    for (const contender of contenders) {
      context.log(`peers, ${backend}: ${contender.name}: ${warm} sessions created, a turn and two loads each (not timed)…`);
      await contender.warmUp();
    }
    const healthFirst = await ledger.health();
    context.log(`peers, ${backend}: GET /health: ${summary(healthFirst)}`);
    const results = new Map<string, Partial<Record<PathName, PathResult>>>(contenders.map((contender) => [contender.name, {}]));
    // Path by path, each contender in turn: a load that changes during the pass falls on all three alike.
    for (const path of PATH_NAMES)
      for (const contender of contenders) {
        const result = await contender.measure(path);
        context.log(`peers, ${backend}: ${path}: ${contender.name}: ${summary(result)}`);
        results.get(contender.name)![path] = result;
      }
    const healthLast = await ledger.health();
    context.log(`peers, ${backend}: GET /health: ${summary(healthLast)}`);
    const complete = (name: string) => results.get(name) as Record<PathName, PathResult>;
    return {
      backend,
      clients,
      health: { first: healthFirst, last: healthLast },
      ledger: complete(ledger.name),
      peers: libraries.map((library): PeerResults => ({ name: library.name, calls: library.calls, results: complete(library.name) })),
    };
  } finally {
    await service?.stop();
    for (const library of libraries) await library.close();
    if (peerSchemas)
      await withAdminPool(options.postgresUrl!, async (pool) => {
        for (const schema of Object.values(peerSchemas)) await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      });
    await storage.dispose();
  }
}

function summary(result: PathResult): string {
  return `${result.perSecond.toFixed(0)}/s, p50 ${result.latencyMs.p50.toFixed(1)} ms, p99 ${result.latencyMs.p99.toFixed(1)} ms, CPU ${result.cpuMsPerOperation.toFixed(2)} ms/op, ${result.errors} errors${result.firstError ? ` (first: ${result.firstError})` : ''}`;
}

function peerSchema(library: string): string {
  return `bench_peers_${library}_${randomBytes(4).toString('hex')}`;
}

async function withAdminPool(postgresUrl: string, work: (pool: PostgresPool) => Promise<void>): Promise<void> {
  const pool = new PostgresPool({ connectionString: postgresUrl, max: 1, applicationName: 'session-ledger-bench' });
  try {
    await work(pool);
  } finally {
    await pool.end();
  }
}

/**
 * The built service over HTTP, autocannon in a child process with `clients` connections, as the http part drives it;
 * the CPU is the service process's.
 */
function ledgerOverHttp(service: BenchService, clients: number, seconds: number, warm: number): Contender & { health(): Promise<PathResult> } {
  const run = `${Date.now()}`;
  const warmPrefix = `peers-warm-${run}`;
  const warmPick = { from: 0, count: warm };
  let warmSessions: string[] = [];
  const untimed = (scenario: LoadScenario, amount: number) => runLoad({ url: service.url, connections: clients, amount, scenario });
  const timed = async (scenario: LoadScenario): Promise<PathResult> => {
    const cpuBefore = await service.cpuMs();
    const result = await runLoad({ url: service.url, connections: clients, durationSeconds: seconds, scenario });
    const cpuMs = (await service.cpuMs()) - cpuBefore;
    // The projections' share of this path's writes must not fall into the next one.
    await service.waitForProjections(600_000);
    return fromLoadResult(result, cpuMs);
  };
  return {
    name: 'ledger',
    async warmUp() {
      await runLoad({ url: service.url, connections: clients, durationSeconds: 2, scenario: { kind: 'health' } });
      const created = await untimed({ kind: 'resolve-new', chatPrefix: warmPrefix, collectSessionIds: true }, warm);
      warmSessions = created.sessionIds ?? [];
      if (warmSessions.length < warm) throw new Error(`the ledger created ${warmSessions.length} of ${warm} sessions: ${JSON.stringify(created.statusCodes)}`);
      await untimed({ kind: 'turns', sessionIds: warmSessions }, warm);
      await untimed({ kind: 'resolve', chatPrefix: warmPrefix, pick: warmPick }, warm * 2);
      await service.waitForProjections(600_000);
    },
    measure(path) {
      switch (path) {
        case 'create':
          return timed({ kind: 'resolve-new', chatPrefix: `peers-new-${run}` });
        case 'turn':
          return timed({ kind: 'turns', sessionIds: warmSessions });
        case 'load':
          return timed({ kind: 'resolve', chatPrefix: warmPrefix, pick: warmPick });
      }
    },
    health: () => timed({ kind: 'health' }),
  };
}

function fromLoadResult(result: LoadResult, cpuMs: number): PathResult {
  return {
    operations: result.requests - result.non2xx,
    perSecond: result.requestsPerSecond,
    latencyMs: { p50: result.latencyMs.p50, p99: result.latencyMs.p99 },
    errors: result.errors + result.non2xx,
    cpuMsPerOperation: cpuMs / Math.max(result.requests, 1),
    ...(result.errors + result.non2xx > 0 ? { firstError: `statuses ${JSON.stringify(result.statusCodes)}` } : {}),
  };
}

/** A library in this process, `workers` loops calling it; the CPU is this process's. */
function inProcess<Session>(library: PeerLibrary<Session>, workers: number, seconds: number, warm: number): Contender {
  // Each worker keeps to its own share of the warm sessions: no two operations on one session at once, as with the
  // load generator's round robin over more sessions than connections.
  const shares: Session[][] = Array.from({ length: workers }, () => []);
  const ownSession = (worker: number, round: number) => shares[worker]![round % shares[worker]!.length]!;
  const eachWarmSession = (work: (session: Session) => Promise<void>) =>
    inParallel(workers, async (worker) => {
      for (const session of shares[worker]!) await work(session);
    });
  let created = 0;
  return {
    name: library.name,
    async warmUp() {
      // The first session alone: ADK creates its app's state row with the first session, and concurrent first
      // sessions of an app collide on it (a unique violation), which an application in service never meets again.
      shares[0]!.push(await library.createSession('warm-0'));
      await inParallel(workers, async (worker) => {
        for (let index = worker === 0 ? workers : worker; index < warm; index += workers) shares[worker]!.push(await library.createSession(`warm-${index}`));
      });
      await eachWarmSession((session) => library.recordTurn(session));
      await eachWarmSession(async (session) => {
        await library.loadSession(session);
        await library.loadSession(session);
      });
    },
    measure(path) {
      switch (path) {
        case 'create':
          return runWorkers(workers, seconds, () => library.createSession(`new-${created++}`));
        case 'turn':
          return runWorkers(workers, seconds, (worker, round) => library.recordTurn(ownSession(worker, round)));
        case 'load':
          return runWorkers(workers, seconds, (worker, round) => library.loadSession(ownSession(worker, round)));
      }
    },
  };
}
