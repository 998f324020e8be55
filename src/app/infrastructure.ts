// The composition root: opens the databases, event store, read models and projection runner that config asks for.
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DataSource } from 'typeorm';
import type { LedgerConfig } from '../config/config.js';
import { lockDataFolder } from '../database/dataFolderLock.js';
import { isUncreatedDataFolder, templateForFirstStart, templateForInMemoryStart } from '../database/embeddedTemplate.js';
import { PglitePool } from '../database/pglitePool.js';
import { PostgresPool } from '../database/postgresPool.js';
import type { SqlPool } from '../database/sqlPool.js';
import type { EventStore } from '../events/eventStore.js';
import { PostgresEventStore } from '../events/postgres/postgresEventStore.js';
import { UpcastingEventStore } from '../events/upcasting/upcastingEventStore.js';
import type { Logger } from '../logging/logger.js';
import { LedgerMetrics } from '../metrics/ledgerMetrics.js';
import type { Projection } from '../projections/projection.js';
import { AdvisoryLockLease, SoleOwnerLease } from '../projections/projectionLease.js';
import { ProjectionRunner } from '../projections/projectionRunner.js';
import { openReadModelDatabase } from '../projections/readModelDatabase.js';
import { allProjections } from '../projections/allProjections.js';

export interface Infrastructure {
  eventStore: EventStore;
  readModels: DataSource;
  readModelPool: SqlPool;
  /** The database of a PostgreSQL or PGlite event log (erasure rewrites its tables); undefined on EventStoreDB. */
  eventStorePool?: SqlPool;
  projections: ProjectionRunner;
  /** The figures GET /metrics exposes; the event store above is already metered. */
  metrics: LedgerMetrics;
  close(): Promise<void>;
}

/** DATA_DIR=memory:// keeps the embedded database in memory (tests, demos): nothing survives the process. */
export const IN_MEMORY_DATA_DIR = 'memory://';

export async function openInfrastructure(config: LedgerConfig, logger: Logger, projections: readonly Projection[] = allProjections): Promise<Infrastructure> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch((error: unknown) => logger.error({ err: error }, 'error while closing'));
  };
  const metrics = new LedgerMetrics();
  closers.push(async () => metrics.close());
  try {
    let embedded: PglitePool | undefined;
    const openEmbedded = async () => {
      if (embedded) return embedded;
      const dataDir = config.dataDir === IN_MEMORY_DATA_DIR ? undefined : resolve(config.dataDir, 'pglite');
      if (dataDir) {
        mkdirSync(dataDir, { recursive: true });
        const lock = lockDataFolder(resolve(config.dataDir));
        closers.push(async () => lock.release());
      }
      // A first start creates the database, and so does every start in memory: from the template `npm ci` made where
      // there is one, else by initdb in WebAssembly (seconds). Either way say so before it begins.
      const firstStart = dataDir !== undefined && isUncreatedDataFolder(dataDir);
      const template = dataDir ? templateForFirstStart(dataDir) : templateForInMemoryStart();
      const creation = template ? 'created from the template made at install' : 'created by initdb (seconds)';
      logger.info(
        { dataDir: dataDir ?? 'in memory' },
        `opening the embedded PGlite database${firstStart ? `: a first start, ${creation}` : dataDir ? '' : `: in memory, ${creation}`}`,
      );
      try {
        embedded = await PglitePool.open({ dataDir, sharedBuffers: config.embeddedSharedBuffers, initialData: template });
      } catch (error) {
        if (!template) throw error;
        // A damaged template costs the seconds it was to save, never the start: the folder was empty before it.
        logger.warn({ err: error, dataDir: dataDir ?? 'in memory' }, 'the embedded database template did not load: creating the database by initdb');
        if (dataDir) {
          rmSync(dataDir, { recursive: true, force: true });
          mkdirSync(dataDir, { recursive: true });
        }
        embedded = await PglitePool.open({ dataDir, sharedBuffers: config.embeddedSharedBuffers });
      }
      closers.push(() => embedded!.end());
      logger.info({ dataDir: dataDir ?? 'in memory' }, 'embedded PGlite database open');
      return embedded;
    };
    const postgresPools = new Map<string, PostgresPool>();
    const openPostgres = (url: string) => {
      let pool = postgresPools.get(url);
      if (!pool) {
        pool = new PostgresPool({ connectionString: url, max: config.dbPoolSize });
        postgresPools.set(url, pool);
        const opened = pool;
        closers.push(() => opened.end());
      }
      return pool;
    };

    let eventStore: EventStore;
    let eventStorePool: SqlPool | undefined;
    if (config.eventStore.kind === 'esdb') {
      // Loaded only when configured: the gRPC client is seconds of module loading that every other start skips.
      const { EsdbEventStore } = await import('../events/esdb/esdbEventStore.js');
      eventStore = new EsdbEventStore(config.eventStore.url);
      await eventStore.ping();
    } else {
      const pool = config.eventStore.kind === 'postgres' ? openPostgres(config.eventStore.url) : await openEmbedded();
      eventStorePool = pool;
      eventStore = await PostgresEventStore.open(pool, {
        schema: config.eventStoreSchema,
        listenConnectionString: config.eventStore.kind === 'postgres' ? config.eventStore.url : undefined,
      });
    }
    // Every reader (folds, projections, history routes, the CLI) sees events in their current schema version.
    eventStore = new UpcastingEventStore(eventStore);
    eventStore = metrics.meterEventStore(eventStore);
    const store = eventStore;
    closers.push(() => store.close());
    logger.info({ backend: eventStore.backend, schema: config.eventStoreSchema }, 'event store open');

    const readModelPool = config.readModels.kind === 'postgres' ? openPostgres(config.readModels.url) : await openEmbedded();
    const readModels = await openReadModelDatabase(readModelPool, config.readModelSchema, projections);
    closers.push(() => readModels.destroy());

    const lease =
      config.readModels.kind === 'postgres' ? new AdvisoryLockLease(config.readModels.url, `projections:${config.readModelSchema}`) : new SoleOwnerLease();
    const runner = new ProjectionRunner({
      store: eventStore,
      dataSource: readModels,
      schema: config.readModelSchema,
      projections,
      lease,
      logger: logger.child({ component: 'projections' }),
      batchSize: config.projectionBatchSize,
      catchUpBatchSize: config.projectionCatchUpBatchSize,
      wakeDelayMs: config.projectionWakeDelayMs,
      parkAfterFailures: config.projectionParkAfterFailures,
    });
    metrics.watchProjections(runner);
    if (config.projectionsEnabled) {
      await runner.start();
      closers.push(() => runner.stop());
    }
    return { eventStore, readModels, readModelPool, eventStorePool, projections: runner, metrics, close };
  } catch (error) {
    await close();
    throw error;
  }
}
