// Part 1, the event store: appends and reads through PostgresEventStore beside a raw-driver baseline from the same run.
import type { BenchContext } from '../benchContext.js';
import { benchBackends, type BackendName } from '../benchBackends.js';
import { atLeastShare, atLeastValue, type Figure } from '../report.js';
import { measureStore, roundEventCounts, type EventCounts } from '../storeMeasurements.js';

// PGlite runs every statement through one WASM backend, so it gets fewer events to stay within minutes.
const DEFAULT_SINGLE_EVENTS: Record<BackendName, number> = { postgres: 5_000, pglite: 2_000, 'pglite-durable': 2_000 };
const BATCHED_PER_SINGLE = 10;

export async function storePart(context: BenchContext): Promise<Figure[]> {
  const { options } = context;
  // Embedded PGlite runs both in memory and on disk (the service's default); PostgreSQL when selected.
  const chosen = benchBackends(options.postgresUrl).filter((backend) =>
    backend.name === 'postgres' ? options.backends.includes('postgres') : options.backends.includes('pglite'),
  );
  const figures: Figure[] = [];
  for (const backend of chosen) {
    const counts = eventCounts(backend.name);
    context.log(`store, ${backend.name}: ${counts.single} single appends per concurrency, ${counts.batched} batched…`);
    const open = await backend.open();
    try {
      const { settings } = open;
      context.log(
        `store, ${backend.name}: PostgreSQL ${settings.serverVersion}, shared_buffers ${settings.sharedBuffers}, synchronous_commit ${settings.synchronousCommit}`,
      );
      for (const measurement of await measureStore(open.store, open.baseline, counts)) {
        // The targets are for PostgreSQL; PGlite is the embedded default and has none.
        const target = backend.name === 'postgres' ? measurement.target : undefined;
        figures.push({
          part: 'store',
          backend: backend.name,
          name: measurement.name,
          value: measurement.store.eventsPerSecond,
          unit: 'ev/s',
          baseline: { name: 'raw pg', value: measurement.baseline.eventsPerSecond },
          ratio: measurement.ratio,
          verdict: !target
            ? undefined
            : target.kind === 'ratio'
              ? atLeastShare(measurement.ratio, target.min)
              : atLeastValue(measurement.store.eventsPerSecond, target.min, 'ev/s'),
        });
      }
    } finally {
      await open.dispose();
    }
  }
  return figures;
}

function eventCounts(backend: BackendName): EventCounts {
  const configured = Number(process.env.BENCH_EVENTS);
  const single = Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_SINGLE_EVENTS[backend];
  return roundEventCounts({ single, batched: single * BATCHED_PER_SINGLE });
}
