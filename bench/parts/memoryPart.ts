// Part 5, memory: the service's peak RSS with 100,000 conversations behind it and the default cache budget, and whether
// RSS stays flat over a soak in which every message is for a conversation the cache has to make room for.
import { type BenchContext } from '../benchContext.js';
import { atMostTimes, atMostValue, type Figure } from '../report.js';
import { BenchService } from '../service/benchService.js';
import { runLoad } from '../service/runLoad.js';
import type { ServiceBackend } from '../service/serviceStorage.js';

const MIB = 2 ** 20;
const SAMPLE_EVERY_MS = 2_000;
/** The CACHE_MAX_ENTRIES default, which this part leaves alone. */
const DEFAULT_CACHE_ENTRIES = 10_000;

export async function memoryPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend)));
  return figures;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend): Promise<Figure[]> {
  const { options } = context;
  const seeded = await context.seededStorage(backend, options.memoryConversations, 'growth');
  const size = seeded.conversations.length;
  // No CACHE_* variables: the default budget is what is measured.
  const service = await BenchService.start(seeded.storage.env);
  const samples: Array<{ at: number; rss: number }> = [];
  try {
    await service.waitForProjections(7_200_000, (lag) => context.log(`memory, ${backend}: projections ${lag.toLocaleString('en-US')} events behind…`));
    const idle = await service.memory();
    // Each message is a resolve and a turn: two cache entries (conversation, session). Fill the cache past its
    // entry limit first, so that the soak runs with it evicting all the time.
    const fillConversations = Math.min(size, DEFAULT_CACHE_ENTRIES);
    context.log(`memory, ${backend}: ${fillConversations.toLocaleString('en-US')} messages to fill the cache (idle RSS ${(idle.rss / MIB).toFixed(0)} MiB)…`);
    await runLoad({
      url: service.url,
      connections: options.connections,
      amount: fillConversations * 2,
      scenario: { kind: 'message', chatPrefix: seeded.chatPrefix, pick: { from: 0, count: size } },
    });
    context.log(`memory, ${backend}: soak, ${options.soakMinutes} minutes across all ${size.toLocaleString('en-US')} conversations…`);
    const started = Date.now();
    const sampler = setInterval(() => {
      service.memory().then(
        (memory) => samples.push({ at: (Date.now() - started) / 60_000, rss: memory.rss }),
        () => undefined,
      );
    }, SAMPLE_EVERY_MS);
    let soak;
    try {
      soak = await runLoad({
        url: service.url,
        connections: options.connections,
        durationSeconds: options.soakMinutes * 60,
        // Start after the conversations the fill used, so the soak keeps bringing new ones in.
        scenario: { kind: 'message', chatPrefix: seeded.chatPrefix, pick: { from: fillConversations % size, count: size } },
      });
    } finally {
      clearInterval(sampler);
    }
    const end = await service.memory();
    const fifth = Math.max(1, Math.floor(samples.length / 5));
    const mean = (values: Array<{ rss: number }>) => values.reduce((sum, sample) => sum + sample.rss, 0) / values.length;
    const first = mean(samples.slice(0, fifth));
    const last = mean(samples.slice(-fifth));
    const messages = Math.floor(soak.requests / 2);
    const errors = soak.errors + soak.non2xx;
    return [
      {
        part: 'memory',
        backend,
        name: `peak RSS, ${size.toLocaleString('en-US')} conversations, default cache`,
        value: end.peakRss / MIB,
        unit: 'MiB',
        baseline: { name: 'RSS idle after start', value: idle.rss / MIB },
        ratio: end.peakRss / idle.rss,
        ratioStyle: 'times',
        verdict: atMostValue(end.peakRss / MIB, 512, 'MiB'),
      },
      {
        part: 'memory',
        backend,
        name: `RSS over a ${options.soakMinutes}-minute soak, last fifth`,
        value: last / MIB,
        unit: 'MiB',
        baseline: { name: 'first fifth', value: first / MIB },
        ratio: last / first,
        ratioStyle: 'times',
        verdict: atMostTimes(last / first, 1.1, 'the first fifth'),
        note: `slope ${(slope(samples) / MIB).toFixed(1)} MiB/min; ${messages.toLocaleString('en-US')} messages at ${(soak.requestsPerSecond / 2).toFixed(0)}/s; ${errors} errors`,
      },
    ];
  } finally {
    await service.stop();
  }
}

/** Least-squares slope of RSS over time, in bytes per minute. */
function slope(samples: ReadonlyArray<{ at: number; rss: number }>): number {
  if (samples.length < 2) return 0;
  const meanAt = samples.reduce((sum, sample) => sum + sample.at, 0) / samples.length;
  const meanRss = samples.reduce((sum, sample) => sum + sample.rss, 0) / samples.length;
  let covariance = 0;
  let variance = 0;
  for (const sample of samples) {
    covariance += (sample.at - meanAt) * (sample.rss - meanRss);
    variance += (sample.at - meanAt) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}
