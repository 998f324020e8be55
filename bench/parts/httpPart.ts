// Part 2, the service over HTTP: autocannon in a child process against the built service in another, 64 connections.
import { type BenchContext, SEEDED_TURNS } from '../benchContext.js';
import { atLeastShare, atMostTimes, exactly, type Figure } from '../report.js';
import { BenchService } from '../service/benchService.js';
import type { LoadResult, LoadScenario } from '../service/loadScenario.js';
import { runLoad } from '../service/runLoad.js';
import type { ServiceBackend } from '../service/serviceStorage.js';
import { storeAppendRate } from '../service/storeAppendRate.js';

/** The service's DB_POOL_SIZE default: the store baseline gets the same pool the service has. */
const SERVICE_POOL_SIZE = 10;
const WARM_CONVERSATIONS = 100;

export async function httpPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend)));
  return figures;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend): Promise<Figure[]> {
  const { options } = context;
  const seeded = await context.seededStorage(backend, options.smallConversations, 'http');
  const service = await BenchService.start(seeded.storage.env);
  const results = new Map<string, LoadResult>();
  let storeRate: number;
  try {
    await service.waitForProjections(600_000);
    const load = async (name: string, scenario: LoadScenario, amount?: number) => {
      const result = await runLoad({ url: service.url, connections: options.connections, durationSeconds: options.durationSeconds, amount, scenario });
      context.log(
        `http, ${backend}: ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyMs.p99} ms, ${result.errors + result.non2xx} errors`,
      );
      results.set(name, result);
      // The projections' share of this scenario's writes must not fall into the next one.
      await service.waitForProjections(600_000);
      return result;
    };
    const warm = Array.from({ length: Math.min(WARM_CONVERSATIONS, seeded.conversations.length) }, (_, index) => index);
    const sessions = seeded.conversations.slice(0, options.workingSet);
    // Not timed: JIT and connections warm up, and the warm conversations get into the cache.
    await runLoad({ url: service.url, connections: options.connections, durationSeconds: 2, scenario: { kind: 'health' } });
    await runLoad({
      url: service.url,
      connections: options.connections,
      amount: warm.length * 2,
      scenario: { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: warm } },
    });

    await load('health, first', { kind: 'health' });
    await load('resolve, warm', { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: warm } });
    await load('resolve, new conversations', { kind: 'resolve-new', chatPrefix: `new-${Date.now()}` });
    await load('turn append', { kind: 'turns', sessionIds: sessions.map((conversation) => conversation.sessionId) });
    await load('turn append, keyed', { kind: 'turns', sessionIds: sessions.map((conversation) => conversation.sessionId), keyed: true });
    await load('transcript read', { kind: 'transcript', sessionIds: sessions.map((conversation) => conversation.sessionId) });
    await load('health, last', { kind: 'health' });
    context.log(`http, ${backend}: the store's single-append rate at ${options.connections} writers…`);
    storeRate = await storeAppendRate(backend, options.postgresUrl, options.connections, SERVICE_POOL_SIZE, backend === 'postgres' ? 20_000 : 4_000);
  } finally {
    await service.stop();
  }
  return httpFigures(backend, results, storeRate, options.connections);
}

function httpFigures(backend: ServiceBackend, results: Map<string, LoadResult>, storeRate: number, connections: number): Figure[] {
  const get = (name: string) => results.get(name)!;
  // The trivial route is measured first and last; their mean is the baseline, so drift during the run falls on both.
  const health = {
    requestsPerSecond: (get('health, first').requestsPerSecond + get('health, last').requestsPerSecond) / 2,
    p99: (get('health, first').latencyMs.p99 + get('health, last').latencyMs.p99) / 2,
  };
  const perSecond = (name: string, label: string): Figure => ({
    part: 'http',
    backend,
    name: `${label} req/s`,
    value: get(name).requestsPerSecond,
    unit: 'req/s',
    baseline: { name: 'GET /health', value: health.requestsPerSecond },
    ratio: get(name).requestsPerSecond / health.requestsPerSecond,
    note: `p50 ${get(name).latencyMs.p50} ms, p99 ${get(name).latencyMs.p99} ms`,
  });
  const warm = perSecond('resolve, warm', 'resolve, warm conversation');
  warm.verdict = atLeastShare(warm.ratio!, 0.5, 'GET /health');
  const warmP99 = get('resolve, warm').latencyMs.p99;
  // autocannon reports whole milliseconds: a baseline of 0 ms counts as 1.
  const p99Ratio = warmP99 / Math.max(health.p99, 1);
  const turns = get('turn append');
  const errors = [...results.values()].reduce((sum, result) => sum + result.errors + result.non2xx, 0);
  const requests = [...results.values()].reduce((sum, result) => sum + result.requests, 0);
  return [
    {
      part: 'http',
      backend,
      name: 'GET /health req/s (the baseline)',
      value: health.requestsPerSecond,
      unit: 'req/s',
      note: `p99 ${health.p99} ms, mean of first and last run`,
    },
    warm,
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
    perSecond('resolve, new conversations', 'resolve, new conversation'),
    {
      part: 'http',
      backend,
      name: 'turn append req/s',
      value: turns.requestsPerSecond,
      unit: 'req/s',
      baseline: { name: `store append, ${connections} writers`, value: storeRate },
      ratio: turns.requestsPerSecond / storeRate,
      verdict: atLeastShare(turns.requestsPerSecond / storeRate, 0.5, 'store single appends'),
      note: `p99 ${turns.latencyMs.p99} ms`,
    },
    {
      part: 'http',
      backend,
      name: 'turn append with Idempotency-Key req/s',
      value: get('turn append, keyed').requestsPerSecond,
      unit: 'req/s',
      // What a key costs: its claim and its recorded answer, two statements beside the append.
      baseline: { name: 'turn append without a key', value: turns.requestsPerSecond },
      ratio: get('turn append, keyed').requestsPerSecond / turns.requestsPerSecond,
      note: `p99 ${get('turn append, keyed').latencyMs.p99} ms`,
    },
    perSecond('transcript read', `transcript read (${SEEDED_TURNS}+ turns)`),
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
