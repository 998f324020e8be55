// `npm run bench:store`: event-store appends and reads on each backend beside a raw-driver baseline from the same run.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { benchBackends, type BackendName, type DatabaseSettings } from './benchBackends.js';
import { formatRate, formatRatio, renderTable } from './measure.js';
import { measureStore, roundEventCounts, type EventCounts, type MeasurementResult, type Target } from './storeMeasurements.js';

interface BackendResult {
  backend: BackendName;
  settings: DatabaseSettings;
  counts: EventCounts;
  measurements: MeasurementResult[];
}

// PGlite runs every statement through one WASM backend, so it gets fewer events to stay within minutes.
const DEFAULT_SINGLE_EVENTS: Record<BackendName, number> = { postgres: 5_000, pglite: 2_000, 'pglite-durable': 2_000 };
const BATCHED_PER_SINGLE = 10;

async function main(): Promise<void> {
  const machine = describeMachine();
  console.log(`machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, node ${machine.node}, ${machine.os}`);
  console.log(`load average at start: ${machine.loadAverage}`);

  const results: BackendResult[] = [];
  // BENCH_BACKENDS=postgres (a comma-separated list) narrows the run, e.g. for a profile of one backend.
  const only = process.env.BENCH_BACKENDS?.split(',').map((name) => name.trim());
  for (const backend of benchBackends(process.env.BENCH_DATABASE_URL).filter((choice) => !only || only.includes(choice.name))) {
    const counts = eventCounts(backend.name);
    console.error(`${backend.name}: ${counts.single} single appends per concurrency, ${counts.batched} batched…`);
    const open = await backend.open();
    try {
      const { settings } = open;
      console.log(`${backend.name}: PostgreSQL ${settings.serverVersion}, shared_buffers ${settings.sharedBuffers}, synchronous_commit ${settings.synchronousCommit}`);
      const result = { backend: backend.name, settings, counts, measurements: await measureStore(open.store, open.baseline, counts) };
      results.push(result);
      if (process.env.BENCH_WRITE_RESULTS === '1') await writeResult(result, machine);
    } finally {
      await open.dispose();
    }
  }
  // Other work on the machine moves absolute rates a lot; the store and the baseline alternate, so ratios move less.
  console.log(`load average at end: ${loadAverage()}`);
  console.log();
  const header = ['backend', 'measurement', 'store ev/s', 'baseline ev/s', 'store/baseline', 'roadmap target'];
  console.log(renderTable([header, ...results.flatMap(tableRows)], ['left', 'left', 'right', 'right', 'right', 'left']));
}

function eventCounts(backend: BackendName): EventCounts {
  const configured = Number(process.env.BENCH_EVENTS);
  const single = Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_SINGLE_EVENTS[backend];
  return roundEventCounts({ single, batched: single * BATCHED_PER_SINGLE });
}

function tableRows(result: BackendResult): string[][] {
  return result.measurements.map((measurement) => [
    result.backend,
    measurement.name,
    formatRate(measurement.store.eventsPerSecond),
    formatRate(measurement.baseline.eventsPerSecond),
    formatRatio(measurement.ratio),
    // The roadmap's targets are for PostgreSQL; PGlite is the embedded default and has none.
    result.backend === 'postgres' && measurement.target ? judge(measurement, measurement.target) : '',
  ]);
}

function judge(measurement: MeasurementResult, target: Target): string {
  if (target.kind === 'ratio') {
    const points = Math.round((measurement.ratio - target.min) * 100);
    return `≥ ${formatRatio(target.min)}: ${points >= 0 ? `met (+${points} pts)` : `MISSED by ${-points} pts`}`;
  }
  const rate = measurement.store.eventsPerSecond;
  const share = formatRatio(Math.abs(rate - target.min) / target.min);
  return `≥ ${formatRate(target.min)}/s: ${rate >= target.min ? `met (+${share})` : `MISSED by ${share}`}`;
}

type Machine = ReturnType<typeof describeMachine>;

function describeMachine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: loadAverage(),
  };
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' / ');
}

async function writeResult(result: BackendResult, machine: Machine): Promise<void> {
  const folder = new URL('../../bench/results/', import.meta.url);
  await mkdir(folder, { recursive: true });
  const file = new URL(`store-${result.backend}.json`, folder);
  await writeFile(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), machine, loadAverageAfter: loadAverage(), ...result }, null, 2)}\n`);
  console.error(`wrote ${file.pathname}`);
}

await main();
