// Every projection of the service in this process, on a storage's read-model schema (the rebuild part's live runner).
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
