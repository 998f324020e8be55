// Part 3, growth of the store: the same resolve, turn and rollback figures on a store of 1,000 and of 1,000,000
// conversations (one session's growth, 10 vs 10,000 turns, is sessionLengthPart).
import { type BenchContext, type SeededStorage } from '../benchContext.js';
import { loadAverage } from '../machine.js';
import { atMostTimes, type Figure } from '../report.js';
import { BenchService } from '../service/benchService.js';
import type { LoadResult, LoadScenario } from '../service/loadScenario.js';
import { runLoad } from '../service/runLoad.js';
import type { ServiceBackend } from '../service/serviceStorage.js';

type GrowthResults = Map<string, LoadResult>;

interface Measured {
  results: GrowthResults;
  /** The machine's load average (1, 5, 15 minutes) when the first timed scenario started and when the last ended. */
  load: { start: string; end: string };
}

/**
 * The small end is measured before and after the large end, each time on a store of its own made the same way (so
 * the second finds no turns or rollbacks of the first), and the mean of the two is the baseline: the large end's
 * minutes fall between them, so a load that rises or falls over the run moves the baseline with it, as the http
 * part's GET /health, measured first and last. All three stores are filled and projected before any is measured, so
 * the three measurements follow each other within minutes however long the large store takes to fill.
 */
export async function growthPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) {
    const { smallConversations, largeConversations } = context.options;
    const smallBefore = await context.seededStorage(backend, smallConversations, 'growth');
    const smallAfter = await context.seededStorage(backend, smallConversations, 'growth, after');
    const largeStore = await context.seededStorage(backend, largeConversations, 'growth');
    const before = await measureStore(context, backend, smallBefore, 'before');
    const large = await measureStore(context, backend, largeStore);
    const after = await measureStore(context, backend, smallAfter, 'after');
    figures.push(...growthFigures(backend, smallConversations, largeConversations, before, large, after), projectionFigure(backend, largeStore));
  }
  return figures;
}

/**
 * Both stores get the same working set size, so only the number of conversations around it differs: a cost that
 * grows with the store (an index, a scan, a cache sized by it) shows up as a ratio above 1.
 */
async function measureStore(context: BenchContext, backend: ServiceBackend, seeded: SeededStorage, when?: 'before' | 'after'): Promise<Measured> {
  const { options } = context;
  const size = seeded.conversations.length;
  const label = `growth, ${backend}, ${size.toLocaleString('en-US')} conversations${when ? `, ${when} the large end` : ''}`;
  const workingSet = sample(size, Math.min(options.workingSet, size));
  const sessions = workingSet.map((index) => seeded.conversations[index]!);
  const service = await BenchService.start(seeded.storage.env);
  const results: GrowthResults = new Map();
  const load = { start: '', end: '' };
  try {
    await service.waitForProjections(7_200_000, (lag) => context.log(`${label}: projections ${lag.toLocaleString('en-US')} events behind…`));
    const measure = async (name: string, scenario: LoadScenario, amount?: number) => {
      const result = await runLoad({ url: service.url, connections: options.connections, durationSeconds: options.durationSeconds, amount, scenario });
      context.log(`${label}: ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyMs.p99} ms, ${result.errors + result.non2xx} errors`);
      results.set(name, result);
      // The projections' share of this scenario's writes must not fall into the next one.
      await service.waitForProjections(600_000);
    };
    await runLoad({ url: service.url, connections: options.connections, durationSeconds: 2, scenario: { kind: 'health' } });
    load.start = loadAverage();
    context.log(`${label}: load average ${load.start}`);
    // First: each conversation of the working set once, right after start, so every one is a cache miss.
    await measure('resolve, first since start', { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: workingSet } }, workingSet.length);
    await measure('resolve, warm', { kind: 'resolve', chatPrefix: seeded.chatPrefix, pick: { indices: workingSet } });
    await measure('turn append', { kind: 'turns', sessionIds: sessions.map((session) => session.sessionId) });
    await measure('rollback', {
      kind: 'rollback',
      targets: sessions.map((session) => ({ sessionId: session.sessionId, checkpointId: session.checkpointIds[0]! })),
    });
    load.end = loadAverage();
    context.log(`${label}: load average ${load.end}`);
  } finally {
    await service.stop();
  }
  return { results, load };
}

function growthFigures(backend: ServiceBackend, smallSize: number, largeSize: number, before: Measured, large: Measured, after: Measured): Figure[] {
  const count = (size: number) => size.toLocaleString('en-US');
  const rate = (result: LoadResult) => result.requestsPerSecond.toFixed(result.requestsPerSecond < 100 ? 1 : 0);
  const firstOfLoad = (load: string) => load.split(' / ')[0];
  const loads = [before, large, after].map((measured) => `${firstOfLoad(measured.load.start)}–${firstOfLoad(measured.load.end)}`).join(', ');
  return [...large.results.keys()].map((name) => {
    const atLarge = large.results.get(name)!;
    const atSmall = [before.results.get(name)!, after.results.get(name)!];
    const baseline = (atSmall[0]!.requestsPerSecond + atSmall[1]!.requestsPerSecond) / 2;
    // How much more a request costs with the larger store: throughput at the small one over throughput at the large one.
    const cost = baseline / atLarge.requestsPerSecond;
    const errors = [atLarge, ...atSmall].reduce((sum, result) => sum + result.errors + result.non2xx, 0);
    return {
      part: 'growth',
      backend,
      name: `${name} req/s, ${count(largeSize)} conversations`,
      value: atLarge.requestsPerSecond,
      unit: 'req/s',
      baseline: { name: `${count(smallSize)} conversations, mean of before and after`, value: baseline },
      ratio: cost,
      ratioStyle: 'times',
      verdict: atMostTimes(cost, 1.5, `${count(smallSize)}'s cost`),
      note:
        `${count(smallSize)} before ${rate(atSmall[0]!)}, after ${rate(atSmall[1]!)} req/s; ` +
        `p99 ${atLarge.latencyMs.p99} vs ${atSmall[0]!.latencyMs.p99} / ${atSmall[1]!.latencyMs.p99} ms; ` +
        `1-minute load before, large, after: ${loads}${errors ? `; ${errors} errors` : ''}`,
    };
  });
}

/**
 * How fast the service projected the large store's log at its first start, from nothing: a projector far behind the
 * head, as after a bulk import or downtime. Against the rebuild part's target (20,000 events/s on PostgreSQL), which
 * replays a log of long sessions; this log is four events per conversation, each conversation new rows in every table.
 */
function projectionFigure(backend: ServiceBackend, store: SeededStorage): Figure {
  const { projection, events } = store;
  return {
    part: 'growth',
    backend,
    name: `projecting ${events.toLocaleString('en-US')} events at the service's first start`,
    value: projection.eventsPerSecond,
    unit: 'ev/s',
    note: `${projection.seconds.toFixed(0)} s from the service's start to every projection live; load ${projection.load.start} → ${projection.load.end}`,
  };
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
