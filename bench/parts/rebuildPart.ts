// Part 4, projection rebuild: every read model replayed from position 0 of a log of 1,000,000 events, timed, and
// compared row for row with the read models the projections kept live while that log was written.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { allProjections } from '../../src/projections/allProjections.js';
import type { BenchContext } from '../benchContext.js';
import { measureRate } from '../measure.js';
import { atLeastValue, exactly, type Figure } from '../report.js';
import { lastWrittenPosition, PROJECTION_BATCH_SIZE, startProjections } from '../seeding/projectionCatchUp.js';
import { eventsPerConversation, seedConversations } from '../seeding/seedConversations.js';
import { readWholeLog } from '../storeMeasurements.js';
import { createServiceStorage, type ServiceBackend } from '../service/serviceStorage.js';

/** Longer sessions than the other parts seed: a rebuild's log is mostly turns, as a real one is. */
const TURNS_PER_SESSION = 22;
const BATCH_SIZE = PROJECTION_BATCH_SIZE;
const TIMEOUT_MS = 3 * 3_600_000;

export async function rebuildPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend, context.options.rebuildEvents[backend])));
  return figures;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend, targetEvents: number): Promise<Figure[]> {
  const storage = await createServiceStorage(backend, context.options.postgresUrl, 'rebuild');
  try {
    const opened = await storage.open({ poolSize: 16 });
    const { readModels, runner, stop } = await startProjections(opened);
    try {
      // Live: the projections follow the appends as they would in the service.
      const conversations = Math.ceil(targetEvents / eventsPerConversation(TURNS_PER_SESSION));
      const events = conversations * eventsPerConversation(TURNS_PER_SESSION);
      context.log(
        `rebuild, ${backend}: writing ${events.toLocaleString('en-US')} events (${conversations.toLocaleString('en-US')} conversations) with the projections live…`,
      );
      await seedConversations(opened.store, {
        chatPrefix: 'rebuild',
        conversations,
        turnsPerSession: TURNS_PER_SESSION,
        writers: backend === 'postgres' ? 8 : 1,
        onProgress: (done, written) => {
          if (done % 10_000 === 0) context.log(`rebuild, ${backend}: ${written.toLocaleString('en-US')} events written`);
        },
      });
      // The live and the rebuilt models must both have reached the last event, else they would differ by what they missed.
      const head = await lastWrittenPosition(opened);
      const names = runner.projectionNames;
      if (!(await runner.waitForPosition(names, head, TIMEOUT_MS))) throw new Error('the live projections did not catch up');
      const live = await fingerprint(readModels, opened.readModelSchema);

      context.log(`rebuild, ${backend}: baseline, a bare read of the whole log in pages of ${BATCH_SIZE}…`);
      const read = await measureRate(events, () => readWholeLog(opened.store, BATCH_SIZE));

      context.log(`rebuild, ${backend}: rebuilding ${names.join(', ')} from position 0…`);
      const started = performance.now();
      const finished: Record<string, number> = {};
      for (const name of names) await runner.rebuild(name);
      await Promise.all(
        names.map(async (name) => {
          if (!(await runner.waitForPosition([name], head, TIMEOUT_MS))) throw new Error(`${name} did not finish its rebuild`);
          finished[name] = (performance.now() - started) / 1000;
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const rebuilt = await fingerprint(readModels, opened.readModelSchema);
      const different = Object.keys(live).filter((table) => live[table]!.hash !== rebuilt[table]?.hash);
      for (const table of different) context.log(`rebuild, ${backend}: ${table} differs: ${firstDifference(live[table]!.lines, rebuilt[table]!.lines)}`);
      const rows = Object.values(live).reduce((sum, table) => sum + table.rows, 0);
      const rate = events / seconds;
      const slowest = Object.entries(finished).sort((a, b) => b[1] - a[1])[0]!;
      return [
        {
          part: 'rebuild',
          backend,
          name: `rebuild of every projection from 0, ${events.toLocaleString('en-US')} events`,
          value: rate,
          unit: 'ev/s',
          baseline: { name: `bare readAll, pages of ${BATCH_SIZE}`, value: read.eventsPerSecond },
          ratio: rate / read.eventsPerSecond,
          verdict: backend === 'postgres' ? atLeastValue(rate, 20_000, 'ev/s') : undefined,
          note: `${seconds.toFixed(0)} s; slowest ${slowest[0]} (${slowest[1].toFixed(0)} s), ${Object.entries(finished)
            .filter(([name]) => name !== slowest[0])
            .map(([name, time]) => `${name} ${time.toFixed(0)} s`)
            .join(', ')}`,
        },
        {
          part: 'rebuild',
          backend,
          name: 'rebuilt read models equal the live ones',
          value: Object.keys(live).length - different.length,
          unit: `of ${Object.keys(live).length} tables`,
          verdict: exactly(
            different.length === 0,
            'every row equal',
            different.length === 0 ? `${rows.toLocaleString('en-US')} rows compared` : `differ: ${different.join(', ')}`,
          ),
        },
      ];
    } finally {
      await stop();
      await opened.close();
    }
  } finally {
    await storage.dispose();
  }
}

/** Each projection table's rows as JSON lines in a stable order (sorted, whatever the keys), to compare and to show. */
async function fingerprint(readModels: DataSource, schema: string): Promise<Record<string, { rows: number; hash: string; lines: string[] }>> {
  const tables: Record<string, { rows: number; hash: string; lines: string[] }> = {};
  for (const projection of allProjections) {
    for (const table of projection.tables) {
      const rows: unknown[] = await readModels.query(`SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(table)}`);
      const lines = rows.map((row) => JSON.stringify(row)).sort();
      const hash = createHash('sha256');
      for (const line of lines) hash.update(line).update('\n');
      tables[table] = { rows: rows.length, hash: hash.digest('hex'), lines };
    }
  }
  return tables;
}

/** The first row only the live table has and the first only the rebuilt one has: what a reader needs to see why. */
function firstDifference(live: readonly string[], rebuilt: readonly string[]): string {
  const inRebuilt = new Set(rebuilt);
  const inLive = new Set(live);
  return `live only: ${live.find((line) => !inRebuilt.has(line)) ?? '-'}; rebuilt only: ${rebuilt.find((line) => !inLive.has(line)) ?? '-'}`;
}
