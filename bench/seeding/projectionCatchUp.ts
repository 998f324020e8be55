// Brings a seeded store's read models up to the end of its log in this process, before any service starts on it.
import type { DataSource } from 'typeorm';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { createLogger } from '../../src/logging/logger.js';
import { allProjections } from '../../src/projections/allProjections.js';
import { SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import type { OpenedStorage } from '../service/serviceStorage.js';

/** The service's PROJECTION_BATCH_SIZE default. */
export const PROJECTION_BATCH_SIZE = 500;

export interface RunningProjections {
  readModels: DataSource;
  runner: ProjectionRunner;
  stop(): Promise<void>;
}

/** Every projection of the service, running in this process on the storage's read-model schema. */
export async function startProjections(opened: OpenedStorage): Promise<RunningProjections> {
  const readModels = await openReadModelDatabase(opened.pool, opened.readModelSchema, allProjections);
  const runner = new ProjectionRunner({
    store: opened.store,
    dataSource: readModels,
    schema: opened.readModelSchema,
    projections: allProjections,
    lease: new SoleOwnerLease(),
    logger: createLogger('silent'),
    batchSize: PROJECTION_BATCH_SIZE,
  });
  await runner.start();
  return {
    readModels,
    runner,
    async stop() {
      await runner.stop();
      await readModels.destroy();
    },
  };
}

/**
 * The position of the last event written. Not headPosition(): that stops below the oldest transaction open anywhere
 * in the cluster, so on a shared server it can trail the log for as long as someone else's transaction runs.
 */
export async function lastWrittenPosition(opened: OpenedStorage): Promise<number> {
  const result = await opened.pool.query<{ head: string | number | null }>(
    `SELECT max(position) AS head FROM ${quoteIdentifier(opened.eventStoreSchema)}.events`,
  );
  return Number(result.rows[0]?.head ?? 0);
}

/**
 * A service started on a store whose read models are far behind spends its first minutes projecting (on PGlite,
 * with every request queued behind those transactions), so seeded stores are projected here first.
 */
export async function catchUpProjections(opened: OpenedStorage, timeoutMs: number): Promise<void> {
  const projections = await startProjections(opened);
  try {
    const head = await lastWrittenPosition(opened);
    if (!(await projections.runner.waitForPosition(projections.runner.projectionNames, head, timeoutMs)))
      throw new Error('the projections did not catch up with the seeded log');
  } finally {
    await projections.stop();
  }
}
