// The four measurements, each run on the event store and on the raw baseline with the same events and concurrency.
import type { EventStore } from '../src/events/eventStore.js';
import { alternate, inParallel, measureRate, type Rate, type RateSummary } from './measure.js';
import type { RawBaseline } from './rawBaseline.js';
import { planWorkload, type PlannedAppend, type WorkloadShape } from './workload.js';

export interface EventCounts {
  /** Events in each single-event append measurement, across its rounds. */
  single: number;
  /** Events in the batched append measurement, across its rounds. */
  batched: number;
}

/** A roadmap target: a minimum share of the baseline, or a minimum absolute rate. */
export type Target = { kind: 'ratio'; min: number } | { kind: 'rate'; min: number };

export interface MeasurementResult {
  name: string;
  store: RateSummary;
  baseline: RateSummary;
  /** store events/s over baseline events/s, medians of the rounds. */
  ratio: number;
  /** From the roadmap, for PostgreSQL; none for plain reads. */
  target?: Target;
}

const ROUNDS = 5;
const CONCURRENT_WRITERS = 16;
const BATCH_SIZE = 100;
const READ_PAGE_SIZE = 1_000;
/** The projection runner's batch; what a catch-up subscription reads per query in the service. */
const CATCH_UP_BATCH_SIZE = 500;
const APPENDS_PER_STREAM = 10;
const WARMUP_EVENTS = 200;

/** Counts that split into whole rounds of whole appends, the nearest at or above the asked-for ones. */
export function roundEventCounts(counts: EventCounts): EventCounts {
  const roundUp = (value: number, unit: number) => Math.ceil(value / unit) * unit;
  return { single: roundUp(counts.single, ROUNDS), batched: roundUp(counts.batched, ROUNDS * BATCH_SIZE) };
}

/**
 * Runs every measurement on one database. Reads come last and cover the whole log, which by then holds
 * the same rows in the store's table and the baseline's.
 */
export async function measureStore(store: EventStore, baseline: RawBaseline, counts: EventCounts): Promise<MeasurementResult[]> {
  // Warms connections, plans and the JIT so the first timed round does not pay for them.
  const written = { lastPosition: 0 };
  await compareAppends(
    store,
    baseline,
    { label: 'warmup', writers: 4, events: WARMUP_EVENTS, eventsPerAppend: 1, appendsPerStream: APPENDS_PER_STREAM },
    1,
    written,
  );

  const results: MeasurementResult[] = [];
  const record = (name: string, target: Target | undefined, [storeRate, baselineRate]: [RateSummary, RateSummary]) => {
    results.push({ name, store: storeRate, baseline: baselineRate, ratio: storeRate.eventsPerSecond / baselineRate.eventsPerSecond, target });
  };
  const appends = (label: string, writers: number, events: number, eventsPerAppend: number) =>
    compareAppends(store, baseline, { label, writers, events: events / ROUNDS, eventsPerAppend, appendsPerStream: APPENDS_PER_STREAM }, ROUNDS, written);

  record('append 1 event, 1 writer', { kind: 'ratio', min: 0.7 }, await appends('single', 1, counts.single, 1));
  record(`append 1 event, ${CONCURRENT_WRITERS} writers`, { kind: 'ratio', min: 0.7 }, await appends('concurrent', CONCURRENT_WRITERS, counts.single, 1));
  record(`append ${BATCH_SIZE} events, 1 writer`, { kind: 'ratio', min: 0.6 }, await appends('batched', 1, counts.batched, BATCH_SIZE));

  const logLength = WARMUP_EVENTS + 2 * counts.single + counts.batched;
  await waitForHorizon(store, written.lastPosition);
  // The first read of fresh rows sets their hint bits (writes); a subscriber catching up on history finds them set.
  await baseline.readAll(READ_PAGE_SIZE);
  await readWholeLog(store, READ_PAGE_SIZE);
  record(
    `read all, pages of ${READ_PAGE_SIZE.toLocaleString('en-US')}`,
    undefined,
    await alternate(
      ROUNDS,
      () => measureRate(logLength, () => readWholeLog(store, READ_PAGE_SIZE)),
      () => measureRate(logLength, () => baseline.readAll(READ_PAGE_SIZE)),
    ),
  );
  const head = await store.headPosition();
  record(
    `subscription catch-up, batches of ${CATCH_UP_BATCH_SIZE}`,
    { kind: 'rate', min: 50_000 },
    await alternate(
      ROUNDS,
      () => measureRate(logLength, () => catchUp(store, head, CATCH_UP_BATCH_SIZE)),
      () => measureRate(logLength, () => baseline.readAll(CATCH_UP_BATCH_SIZE)),
    ),
  );
  return results;
}

/**
 * Readers stop below the oldest transaction open anywhere in the cluster (the horizon), so on a shared server
 * someone else's long transaction hides our newest events for a while: the reads wait until they are all visible.
 */
async function waitForHorizon(store: EventStore, position: number): Promise<void> {
  const deadline = Date.now() + 600_000;
  while ((await store.headPosition()) < position) {
    if (Date.now() > deadline) throw new Error(`the read horizon stayed below position ${position} for 10 minutes: a transaction elsewhere is open`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Each round plans its own streams, then the store and the baseline write the same events. */
function compareAppends(
  store: EventStore,
  baseline: RawBaseline,
  shape: WorkloadShape,
  rounds: number,
  written: { lastPosition: number },
): Promise<[RateSummary, RateSummary]> {
  const plans = Array.from({ length: rounds }, (_, round) => planWorkload({ ...shape, label: `${shape.label}-r${round}` }));
  const run = (writers: PlannedAppend[][], append: (planned: PlannedAppend) => Promise<unknown>): Promise<Rate> =>
    measureRate(shape.events, () =>
      inParallel(writers.length, async (writer) => {
        for (const planned of writers[writer]!) await append(planned);
      }),
    );
  return alternate(
    rounds,
    (round) =>
      run(plans[round]!, async (planned) => {
        const { position } = await store.append(planned.streamName, planned.events, planned.revision - 1);
        written.lastPosition = Math.max(written.lastPosition, position);
      }),
    (round) => run(plans[round]!, (planned) => baseline.append(planned)),
  );
}

/** Reads the whole log through the store in pages, as a catching-up projection does; returns how many events came back. */
export async function readWholeLog(store: EventStore, pageSize: number): Promise<number> {
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
  // Before stop(), `done` settles only when the subscription fails; racing it turns a failure into an error, not a hang.
  const failed = subscription.done.then(() => {
    throw new Error(`the subscription ended after ${seen} events, before reaching the head`);
  });
  try {
    await Promise.race([reached, failed]);
  } finally {
    await subscription.stop();
  }
  return seen;
}
