// The four measurements, each run on the event store and on the raw baseline with the same events and concurrency.
import type { EventStore } from '../src/events/eventStore.js';
import { inParallel, measureRate, type Rate } from './measure.js';
import type { RawBaseline } from './rawBaseline.js';
import { planWorkload, type PlannedAppend, type WorkloadShape } from './workload.js';

export interface EventCounts {
  /** Events in each single-event append measurement. */
  single: number;
  /** Events in the batched append measurement. */
  batched: number;
}

/** A roadmap target: a minimum share of the baseline, or a minimum absolute rate. */
export type Target = { kind: 'ratio'; min: number } | { kind: 'rate'; min: number };

export interface MeasurementResult {
  name: string;
  store: Rate;
  baseline: Rate;
  /** store events/s over baseline events/s. */
  ratio: number;
  /** From the roadmap, for PostgreSQL; none for plain reads. */
  target?: Target;
}

const CONCURRENT_WRITERS = 16;
const BATCH_SIZE = 100;
const READ_PAGE_SIZE = 1_000;
/** The projection runner's batch; what a catch-up subscription reads per query in the service. */
const CATCH_UP_BATCH_SIZE = 500;
const APPENDS_PER_STREAM = 10;
const WARMUP_EVENTS = 200;

/**
 * Runs every measurement in order on one database. Reads come last and cover the whole log, which by then
 * holds the same rows in the store and the baseline; the baseline runs first in each pair.
 */
export async function measureStore(store: EventStore, baseline: RawBaseline, counts: EventCounts): Promise<MeasurementResult[]> {
  const appendShape = (label: string, writers: number, events: number, eventsPerAppend: number): WorkloadShape => ({
    label,
    writers,
    events,
    eventsPerAppend,
    appendsPerStream: APPENDS_PER_STREAM,
  });
  // Warms connections, plans and the JIT so the first timed measurement does not pay for them.
  await compareAppends(store, baseline, appendShape('warmup', 4, WARMUP_EVENTS, 1));

  const results: MeasurementResult[] = [];
  const record = (name: string, target: Target | undefined, [storeRate, baselineRate]: [Rate, Rate]) => {
    results.push({ name, store: storeRate, baseline: baselineRate, ratio: storeRate.eventsPerSecond / baselineRate.eventsPerSecond, target });
  };
  record('append 1 event, 1 writer', { kind: 'ratio', min: 0.7 }, await compareAppends(store, baseline, appendShape('single', 1, counts.single, 1)));
  record(
    `append 1 event, ${CONCURRENT_WRITERS} writers`,
    { kind: 'ratio', min: 0.7 },
    await compareAppends(store, baseline, appendShape('concurrent', CONCURRENT_WRITERS, counts.single, 1)),
  );
  record(
    `append ${BATCH_SIZE} events, 1 writer`,
    { kind: 'ratio', min: 0.6 },
    await compareAppends(store, baseline, appendShape('batched', 1, counts.batched, BATCH_SIZE)),
  );

  const logLength = WARMUP_EVENTS + 2 * counts.single + counts.batched;
  const readBaseline = await measureRate(logLength, () => baseline.readAll(READ_PAGE_SIZE));
  const readStore = await measureRate(logLength, () => readWholeLog(store, READ_PAGE_SIZE));
  record(`read all, pages of ${READ_PAGE_SIZE.toLocaleString('en-US')}`, undefined, [readStore, readBaseline]);

  const catchUpBaseline = await measureRate(logLength, () => baseline.readAll(CATCH_UP_BATCH_SIZE));
  const head = await store.headPosition();
  const catchUpStore = await measureRate(logLength, () => catchUp(store, head, CATCH_UP_BATCH_SIZE));
  record(`subscription catch-up, batches of ${CATCH_UP_BATCH_SIZE}`, { kind: 'rate', min: 50_000 }, [catchUpStore, catchUpBaseline]);
  return results;
}

/** Plans once, then times the baseline and the store writing the same events. */
async function compareAppends(store: EventStore, baseline: RawBaseline, shape: WorkloadShape): Promise<[Rate, Rate]> {
  const writers = planWorkload(shape);
  const run = (append: (planned: PlannedAppend) => Promise<unknown>) =>
    measureRate(shape.events, () =>
      inParallel(writers.length, async (writer) => {
        for (const planned of writers[writer]!) await append(planned);
      }),
    );
  const baselineRate = await run((planned) => baseline.append(planned));
  const storeRate = await run((planned) => store.append(planned.streamName, planned.events, planned.revision - 1));
  return [storeRate, baselineRate];
}

async function readWholeLog(store: EventStore, pageSize: number): Promise<number> {
  let position = 0;
  let total = 0;
  for (;;) {
    const page = await store.readAll({ fromPosition: position, maxCount: pageSize });
    total += page.length;
    if (page.length < pageSize) return total;
    position = page[page.length - 1]!.position;
  }
}

/** Subscribes from the start and counts events until the one at `head` arrives. */
async function catchUp(store: EventStore, head: number, batchSize: number): Promise<number> {
  let seen = 0;
  let reachedHead!: () => void;
  const reached = new Promise<void>((resolve) => (reachedHead = resolve));
  const subscription = store.subscribe(
    (event) => {
      seen += 1;
      if (event.position >= head) reachedHead();
    },
    { fromPosition: 0, batchSize },
  );
  const ended = subscription.done.then(() => {
    throw new Error(`the subscription ended after ${seen} events, before reaching the head`);
  });
  try {
    await Promise.race([reached, ended]);
  } finally {
    await subscription.stop();
  }
  return seen;
}
