// Part 2, the service over HTTP (issue #20): autocannon in a child process against the built service in another, 16 clients.
import { type BenchContext, SEEDED_TURNS } from '../benchContext.js';
import { HERMES } from '../hermesReference.js';
import { atLeastShare, atLeastTimes, atMostTimes, exactly, type Figure } from '../report.js';
import { BenchService } from '../service/benchService.js';
import type { LoadResult, LoadScenario } from '../service/loadScenario.js';
import { RAW_TRANSACTIONS, rawInsertRate } from '../service/rawInsertRate.js';
import { runLoad } from '../service/runLoad.js';
import type { ServiceBackend } from '../service/serviceStorage.js';

/** Conversations resolved before the clock starts, so their conversation and session states are cached. */
const WARM_CONVERSATIONS = 100;

export async function httpPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend)));
  return figures;
}

interface RawRates {
  before: number;
  after: number;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend): Promise<Figure[]> {
  const { options } = context;
  const clients = options.connections;
  const seeded = await context.seededStorage(backend, options.smallConversations, 'http');
  const rawRate = async (when: string) => {
    context.log(`http, ${backend}: raw one-row INSERT + COMMIT, ${clients} clients (${when})…`);
    const rate = await rawInsertRate(backend, options.postgresUrl, clients, RAW_TRANSACTIONS[backend]);
    context.log(`http, ${backend}: raw ${rate.toFixed(0)} transactions/s`);
    return rate;
  };
  const raw: RawRates = { before: await rawRate('before the service'), after: 0 };
  const service = await BenchService.start(seeded.storage.env);
  const results = new Map<string, LoadResult>();
  try {
    await service.waitForProjections(600_000);
    const load = async (name: string, scenario: LoadScenario, amount?: number) => {
      const cpuBefore = await service.cpuMs();
      const result = await runLoad({ url: service.url, connections: clients, durationSeconds: options.durationSeconds, amount, scenario });
      result.cpuMsPerRequest = ((await service.cpuMs()) - cpuBefore) / Math.max(result.requests, 1);
      context.log(
        `http, ${backend}: ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, service CPU ${result.cpuMsPerRequest.toFixed(2)} ms/request, ${result.errors + result.non2xx} errors (statuses ${JSON.stringify(result.statusCodes)})`,
      );
      results.set(name, result);
      // The projections' share of this scenario's writes must not fall into the next one.
      await service.waitForProjections(600_000);
      return result;
    };
    const warm = Array.from({ length: Math.min(WARM_CONVERSATIONS, seeded.conversations.length) }, (_, index) => index);
    const warmSessions = warm.map((index) => seeded.conversations[index]!.sessionId);
    const mixedSessions = seeded.conversations.slice(0, options.workingSet).map((conversation) => conversation.sessionId);
    // Not timed: JIT and connections warm up, and the warm conversations get into the cache.
    await runLoad({ url: service.url, connections: clients, durationSeconds: 2, scenario: { kind: 'health' } });
    await runLoad({
      url: service.url,
      connections: clients,
      amount: warm.length * 2,
      scenario: { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: warm } },
    });

    await load('health, first', { kind: 'health' });
    await load('resolve, warm', { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: warm } });
    await load('resolve, new conversations', { kind: 'resolve-new', chatPrefix: `new-${Date.now()}` });
    await load('turn append, warm', { kind: 'turns', sessionIds: warmSessions });
    // Most of the working set is not cached when this starts: each session's first turn loads it (snapshot + read).
    await load('turn append, cold mix', { kind: 'turns', sessionIds: mixedSessions });
    await load('turn append, keyed', { kind: 'turns', sessionIds: warmSessions, keyed: true });
    await load('transcript read', { kind: 'transcript', sessionIds: mixedSessions });

    // Issue #20's comparison with Hermes' SessionStore: the same fixed workload, one request per operation.
    const hermesPrefix = `hermes-${Date.now()}`;
    const created = await load('hermes: resolve creating', { kind: 'resolve-new', chatPrefix: hermesPrefix, collectSessionIds: true }, HERMES.conversations);
    // A failed resolve counts among the errors below; the turns go to the sessions that were created.
    const hermesSessions = created.sessionIds ?? [];
    await load('hermes: turn append', { kind: 'turns', sessionIds: hermesSessions }, hermesSessions.length * HERMES.turnsEach);
    await load('hermes: resolve warm', { kind: 'resolve', chatPrefix: hermesPrefix, pick: { from: 0, count: HERMES.conversations } }, HERMES.conversations);

    await load('health, last', { kind: 'health' });
  } finally {
    await service.stop();
  }
  if (backend === 'postgres') await measureSplitTopology(context, seeded.storage.env, seeded.conversations.slice(0, WARM_CONVERSATIONS), results);
  raw.after = await rawRate('after the service');
  return httpFigures(backend, results, raw, clients, Math.min(options.workingSet, seeded.conversations.length));
}

/**
 * The projections off the request process (docs/operations.md): an API instance with PROJECTIONS_ENABLED=false
 * beside a projector-only instance, on the same PostgreSQL. The turns and creations go to the API instance.
 */
async function measureSplitTopology(
  context: BenchContext,
  env: Record<string, string>,
  warmConversations: ReadonlyArray<{ sessionId: string }>,
  results: Map<string, LoadResult>,
): Promise<void> {
  const { options } = context;
  const projector = await BenchService.start({ ...env, PROJECTIONS_ENABLED: 'true' });
  let api: BenchService | undefined;
  try {
    api = await BenchService.start({ ...env, PROJECTIONS_ENABLED: 'false' });
    await projector.waitForProjections(600_000);
    const sessionIds = warmConversations.map((conversation) => conversation.sessionId);
    // Not timed: the API instance's JIT, connections and cache warm up.
    await runLoad({ url: api.url, connections: options.connections, amount: sessionIds.length * 2, scenario: { kind: 'turns', sessionIds } });
    await projector.waitForProjections(600_000);
    for (const [name, scenario] of [
      ['split: turn append, warm', { kind: 'turns', sessionIds }],
      ['split: resolve, new conversations', { kind: 'resolve-new', chatPrefix: `split-${Date.now()}` }],
    ] as const) {
      const [apiCpu, projectorCpu] = [await api.cpuMs(), await projector.cpuMs()];
      const result = await runLoad({ url: api.url, connections: options.connections, durationSeconds: options.durationSeconds, scenario });
      result.cpuMsPerRequest = ((await api.cpuMs()) - apiCpu) / Math.max(result.requests, 1);
      await projector.waitForProjections(600_000);
      const projectorMs = ((await projector.cpuMs()) - projectorCpu) / Math.max(result.requests, 1);
      context.log(
        `http, postgres: ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, API instance CPU ${result.cpuMsPerRequest.toFixed(2)} ms/request, projector ${projectorMs.toFixed(2)} ms/request, ${result.errors + result.non2xx} errors`,
      );
      results.set(name, result);
    }
  } finally {
    await api?.stop();
    await projector.stop();
  }
}

function httpFigures(backend: ServiceBackend, results: Map<string, LoadResult>, raw: RawRates, clients: number, workingSet: number): Figure[] {
  const get = (name: string) => results.get(name)!;
  const latency = (name: string) =>
    `p50 ${get(name).latencyMs.p50} ms, p99 ${get(name).latencyMs.p99} ms, service CPU ${get(name).cpuMsPerRequest!.toFixed(2)} ms/req`;
  // Baselines are measured first and last; their mean is the baseline, so drift during the run falls on both.
  const health = {
    requestsPerSecond: (get('health, first').requestsPerSecond + get('health, last').requestsPerSecond) / 2,
    p50: (get('health, first').latencyMs.p50 + get('health, last').latencyMs.p50) / 2,
    p99: (get('health, first').latencyMs.p99 + get('health, last').latencyMs.p99) / 2,
  };
  const rawRate = (raw.before + raw.after) / 2;
  const rawName = `raw INSERT+COMMIT, ${clients} clients`;
  const share = (name: string, label: string, baseline: { name: string; value: number }, min?: number, of?: string): Figure => {
    const ratio = get(name).requestsPerSecond / baseline.value;
    return {
      part: 'http',
      backend,
      name: `${label} req/s`,
      value: get(name).requestsPerSecond,
      unit: 'req/s',
      baseline,
      ratio,
      verdict: min === undefined ? undefined : atLeastShare(ratio, min, of),
      note: latency(name),
    };
  };
  const againstHermes = (name: string, label: string, hermesRate: number): Figure => {
    const ratio = get(name).requestsPerSecond / hermesRate;
    return {
      part: 'http',
      backend,
      name: `Hermes workload: ${label} req/s`,
      value: get(name).requestsPerSecond,
      unit: 'req/s',
      baseline: { name: "Hermes' SessionStore", value: hermesRate },
      ratio,
      ratioStyle: 'times',
      verdict: atLeastTimes(ratio, HERMES.target, 'Hermes'),
      note: latency(name),
    };
  };
  const rawBaseline = { name: rawName, value: rawRate };
  const healthBaseline = { name: 'GET /health', value: health.requestsPerSecond };
  const warmP99 = get('resolve, warm').latencyMs.p99;
  // autocannon reports whole milliseconds: a baseline of 0 ms counts as 1.
  const p99Ratio = warmP99 / Math.max(health.p99, 1);
  const errors = [...results.values()].reduce((sum, result) => sum + result.errors + result.non2xx, 0);
  const requests = [...results.values()].reduce((sum, result) => sum + result.requests, 0);
  return [
    {
      part: 'http',
      backend,
      name: `${rawName} tx/s (the write baseline)`,
      value: rawRate,
      unit: 'tx/s',
      note: `before the service ${raw.before.toFixed(0)}, after it ${raw.after.toFixed(0)}`,
    },
    {
      part: 'http',
      backend,
      name: 'GET /health req/s (the read baseline)',
      value: health.requestsPerSecond,
      unit: 'req/s',
      note: `p50 ${health.p50} ms, p99 ${health.p99} ms, mean of first and last run; service CPU ${get('health, first').cpuMsPerRequest!.toFixed(2)} and ${get('health, last').cpuMsPerRequest!.toFixed(2)} ms/req`,
    },
    share('turn append, warm', 'turn append, warm sessions', rawBaseline, 0.5, 'raw'),
    share('turn append, cold mix', `turn append, cold mix (${workingSet.toLocaleString('en-US')} sessions)`, rawBaseline, 0.5, 'raw'),
    // What a key costs: its claim and its recorded answer, two statements beside the append.
    share('turn append, keyed', 'turn append with Idempotency-Key', { name: 'turn append, warm', value: get('turn append, warm').requestsPerSecond }),
    share('resolve, new conversations', 'resolve creating a conversation', rawBaseline, 0.33, 'raw'),
    ...(results.has('split: turn append, warm')
      ? [
          share('split: turn append, warm', 'turn append, warm, API instance beside a projector instance', rawBaseline, 0.5, 'raw'),
          share('split: resolve, new conversations', 'resolve creating, API instance beside a projector instance', rawBaseline, 0.33, 'raw'),
        ]
      : []),
    share('resolve, warm', 'resolve, warm conversation', healthBaseline, 0.6, 'GET /health'),
    {
      part: 'http',
      backend,
      name: 'resolve, warm conversation p99',
      value: warmP99,
      unit: 'ms',
      baseline: { name: 'GET /health p99', value: health.p99 },
      ratio: p99Ratio,
      ratioStyle: 'times',
      verdict: atMostTimes(p99Ratio, 10, 'GET /health p99'),
    },
    share('transcript read', `transcript read (${SEEDED_TURNS}+ turns)`, healthBaseline),
    againstHermes('hermes: resolve creating', `resolve creating (${HERMES.conversations})`, HERMES.createsPerSecond),
    againstHermes('hermes: turn append', `turn append (${HERMES.conversations} × ${HERMES.turnsEach})`, HERMES.turnsPerSecond),
    againstHermes('hermes: resolve warm', `resolve, warm (${HERMES.conversations})`, HERMES.warmResolvesPerSecond),
    {
      part: 'http',
      backend,
      name: 'errors (all HTTP scenarios)',
      value: errors,
      unit: '',
      verdict: exactly(errors === 0, 'zero errors', `${errors} of ${requests.toLocaleString('en-US')} requests`),
    },
  ];
}
