// Part 3, growth of the store: the same resolve, turn and rollback figures on a store of 1,000 and of 1,000,000
// conversations (one session's growth, 10 vs 10,000 turns, is sessionLengthPart).
import { type BenchContext, type SeededStorage } from '../benchContext.js';
import { atMostTimes, type Figure } from '../report.js';
import { BenchService } from '../service/benchService.js';
import type { LoadResult, LoadScenario } from '../service/loadScenario.js';
import { runLoad } from '../service/runLoad.js';
import type { ServiceBackend } from '../service/serviceStorage.js';

type GrowthResults = Map<string, LoadResult>;

export async function growthPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) {
    const { smallConversations, largeConversations } = context.options;
    const small = await measureStore(context, backend, await context.seededStorage(backend, smallConversations, 'growth'));
    const large = await measureStore(context, backend, await context.seededStorage(backend, largeConversations, 'growth'));
    figures.push(...growthFigures(backend, smallConversations, largeConversations, small, large));
  }
  return figures;
}

/**
 * Both stores get the same working set size, so only the number of conversations around it differs: a cost that
 * grows with the store (an index, a scan, a cache sized by it) shows up as a ratio above 1.
 */
async function measureStore(context: BenchContext, backend: ServiceBackend, seeded: SeededStorage): Promise<GrowthResults> {
  const { options } = context;
  const size = seeded.conversations.length;
  const label = `growth, ${backend}, ${size.toLocaleString('en-US')} conversations`;
  const workingSet = sample(size, Math.min(options.workingSet, size));
  const sessions = workingSet.map((index) => seeded.conversations[index]!);
  const service = await BenchService.start(seeded.storage.env);
  const results: GrowthResults = new Map();
  try {
    await service.waitForProjections(7_200_000, (lag) => context.log(`${label}: projections ${lag.toLocaleString('en-US')} events behind…`));
    const load = async (name: string, scenario: LoadScenario, amount?: number) => {
      const result = await runLoad({ url: service.url, connections: options.connections, durationSeconds: options.durationSeconds, amount, scenario });
      context.log(`${label}: ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyMs.p99} ms, ${result.errors + result.non2xx} errors`);
      results.set(name, result);
      // The projections' share of this scenario's writes must not fall into the next one.
      await service.waitForProjections(600_000);
    };
    await runLoad({ url: service.url, connections: options.connections, durationSeconds: 2, scenario: { kind: 'health' } });
    // First: each conversation of the working set once, right after start, so every one is a cache miss.
    await load('resolve, first since start', { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: workingSet } }, workingSet.length);
    await load('resolve, warm', { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: workingSet } });
    await load('turn append', { kind: 'turns', sessionIds: sessions.map((session) => session.sessionId) });
    await load('rollback', {
      kind: 'rollback',
      targets: sessions.map((session) => ({ sessionId: session.sessionId, checkpointId: session.checkpointIds[0]! })),
    });
  } finally {
    await service.stop();
  }
  return results;
}

function growthFigures(backend: ServiceBackend, smallSize: number, largeSize: number, small: GrowthResults, large: GrowthResults): Figure[] {
  const count = (size: number) => size.toLocaleString('en-US');
  return [...large.keys()].map((name) => {
    const atLarge = large.get(name)!;
    const atSmall = small.get(name)!;
    // How much more a request costs with the larger store: throughput at the small one over throughput at the large one.
    const cost = atSmall.requestsPerSecond / atLarge.requestsPerSecond;
    const errors = atLarge.errors + atLarge.non2xx + atSmall.errors + atSmall.non2xx;
    return {
      part: 'growth',
      backend,
      name: `${name} req/s, ${count(largeSize)} conversations`,
      value: atLarge.requestsPerSecond,
      unit: 'req/s',
      baseline: { name: `${count(smallSize)} conversations`, value: atSmall.requestsPerSecond },
      ratio: cost,
      ratioStyle: 'times',
      verdict: atMostTimes(cost, 1.5, `${count(smallSize)}'s cost`),
      note: `p99 ${atLarge.latencyMs.p99} vs ${atSmall.latencyMs.p99} ms${errors ? `; ${errors} errors` : ''}`,
    };
  });
}

/** `count` distinct indices below `size`, in random order (a partial Fisher-Yates shuffle). */
function sample(size: number, count: number): number[] {
  const indices = Array.from({ length: size }, (_, index) => index);
  for (let index = 0; index < count; index++) {
    const pick = index + Math.floor(Math.random() * (size - index));
    [indices[index], indices[pick]] = [indices[pick]!, indices[index]!];
  }
  return indices.slice(0, count);
}
