// `npm run bench -- [store] [http] [growth] [sessions] [rebuild] [memory] [streams] [search] [items] [peers]`: every figure of the performance issue, each beside its
// same-run baseline as a ratio, with a verdict against the issue's target. PGlite always; PostgreSQL with BENCH_DATABASE_URL.
import { mkdir, writeFile } from 'node:fs/promises';
import { BenchContext, parseBenchOptions, type PartName } from './benchContext.js';
import { describeMachine, loadAverage } from './machine.js';
import { growthPart } from './parts/growthPart.js';
import { httpPart } from './parts/httpPart.js';
import { itemHistoryPart } from './parts/itemHistoryPart.js';
import { memoryPart } from './parts/memoryPart.js';
import { peersPart } from './parts/peersPart.js';
import { rebuildPart } from './parts/rebuildPart.js';
import { searchPart } from './parts/searchPart.js';
import { sessionLengthPart } from './parts/sessionLengthPart.js';
import { storePart } from './parts/storePart.js';
import { streamsPart } from './parts/streamsPart.js';
import { type Figure, renderFigures } from './report.js';

const PARTS: Record<PartName, (context: BenchContext) => Promise<Figure[]>> = {
  store: storePart,
  http: httpPart,
  growth: growthPart,
  sessions: sessionLengthPart,
  rebuild: rebuildPart,
  memory: memoryPart,
  streams: streamsPart,
  search: searchPart,
  items: itemHistoryPart,
  peers: peersPart,
};

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  const machine = describeMachine();
  console.log(`machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, node ${machine.node}, ${machine.os}`);
  console.log(`parts: ${options.parts.join(', ')}; backends: ${options.backends.join(', ')}; load average at start: ${machine.loadAverage}`);
  const context = new BenchContext(options);
  const figures: Figure[] = [];
  const started = new Date();
  try {
    for (const part of options.parts) {
      const partFigures = await PARTS[part](context);
      figures.push(...partFigures);
      // Each part's figures as soon as they exist: a long run that fails later still leaves them on screen.
      console.log(`\n${renderFigures(partFigures)}\n`);
      context.log(`${part} done; load average ${loadAverage()}`);
    }
  } finally {
    await context.dispose();
  }
  console.log(`load average at end: ${loadAverage()}; ${((Date.now() - started.getTime()) / 60_000).toFixed(1)} minutes\n`);
  console.log(renderFigures(figures));
  const missed = figures.filter((figure) => figure.verdict && !figure.verdict.met);
  console.log(
    `\n${figures.filter((figure) => figure.verdict).length - missed.length} targets met, ${missed.length} missed${missed.length ? `: ${missed.map((figure) => `${figure.backend} ${figure.name}`).join('; ')}` : ''}`,
  );
  if (options.writeResults) {
    const folder = new URL('../../bench/results/', import.meta.url);
    await mkdir(folder, { recursive: true });
    const file = new URL(`run-${started.toISOString().replace(/[:.]/g, '-')}.json`, folder);
    await writeFile(
      file,
      `${JSON.stringify({ startedAt: started, machine, loadAverageAtEnd: loadAverage(), options: { ...options, postgresUrl: undefined }, figures }, null, 2)}\n`,
    );
    console.error(`wrote ${file.pathname}`);
  }
}

await main();
