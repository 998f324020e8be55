// The event store's single-event append rate at a given concurrency, on the storage kind a service uses: the baseline of turn appends.
import { inParallel, measureRate } from '../measure.js';
import { planWorkload } from '../workload.js';
import { createServiceStorage, type ServiceBackend } from './serviceStorage.js';

/** Appends/s of `writers` concurrent single-event appends through a pool of `poolSize`, as the service's own pool. */
export async function storeAppendRate(
  backend: ServiceBackend,
  postgresUrl: string | undefined,
  writers: number,
  poolSize: number,
  appends: number,
): Promise<number> {
  const storage = await createServiceStorage(backend, postgresUrl, 'append_rate');
  try {
    const opened = await storage.open({ poolSize });
    try {
      const warmup = planWorkload({ label: 'warmup', writers, events: writers * 4, eventsPerAppend: 1, appendsPerStream: 10 });
      const plan = planWorkload({ label: 'rate', writers, events: appends, eventsPerAppend: 1, appendsPerStream: 10 });
      const run = (plans: typeof plan) =>
        inParallel(writers, async (writer) => {
          // Without ids, as the service appends: the store generates them and skips the retry lookup.
          for (const append of plans[writer]!)
            await opened.store.append(
              append.streamName,
              append.events.map(({ id: _id, ...event }) => event),
              append.revision - 1,
            );
        });
      await run(warmup);
      return (await measureRate(appends, () => run(plan))).eventsPerSecond;
    } finally {
      await opened.close();
    }
  } finally {
    await storage.dispose();
  }
}
