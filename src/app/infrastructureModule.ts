// What every capability module shares, provided once and globally: config, clock, logger, the event store and its
// state cache, read models, projections, metrics, server-sent event streams, idempotency keys and the command context.
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { approximateJsonSize } from '../events/approximateJsonSize.js';
import { BoundedStateCache } from '../events/boundedStateCache.js';
import { LogHorizonProbe } from '../events/postgres/logHorizon.js';
import { SqlSnapshotStore } from '../events/postgres/sqlSnapshotStore.js';
import { StreamStateStore } from '../events/streamStateStore.js';
import { ServerSentEventStreams } from '../http/serverSentEventStreams.js';
import { IDEMPOTENCY_LEASE_MS, IdempotencyStore } from '../idempotency/idempotencyStore.js';
import { LedgerMetrics } from '../metrics/ledgerMetrics.js';
import { CommandContext } from '../modules/commandContext.js';
import type { AppDependencies } from './appDependencies.js';
import { StateCacheHousekeeping } from './stateCacheHousekeeping.js';
import { stateHasTurnInFlight } from './stateHasTurnInFlight.js';
import { CLOCK } from '../clock.js';
import { CONFIG } from '../config/config.js';
import { EVENT_STORE } from '../events/eventStore.js';
import { EVENT_STREAMS } from '../http/serverSentEventStreams.js';
import { LOG_HORIZON } from '../events/postgres/logHorizon.js';
import { LOGGER } from '../logging/logger.js';
import { PROJECTIONS } from '../projections/projectionRunner.js';
import { READ_MODELS } from '../projections/readModelDatabase.js';
import { STATE_CACHE } from '../events/boundedStateCache.js';

@Global()
@Module({})
export class InfrastructureModule {
  static register({ config, logger, clock, infrastructure }: AppDependencies): DynamicModule {
    // Only a PostgreSQL server has other sessions whose transactions can hold the log's readers back (in its database).
    const logHorizon =
      config.eventStore.kind === 'postgres' && infrastructure.eventStorePool
        ? new LogHorizonProbe(infrastructure.eventStorePool, clock, config.eventStoreSchema)
        : null;
    if (logHorizon) infrastructure.metrics.watchLogHorizon(logHorizon);
    const stateCache = new BoundedStateCache({
      maxEntries: config.cacheMaxEntries,
      maxBytes: config.cacheMaxBytes,
      idleTtlMs: config.cacheIdleTtlSeconds * 1000,
      isInFlight: stateHasTurnInFlight,
      sizeOf: approximateJsonSize,
    });
    const providers = [
      { provide: CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
      { provide: CLOCK, useValue: clock },
      { provide: EVENT_STORE, useValue: infrastructure.eventStore },
      { provide: READ_MODELS, useValue: infrastructure.readModels },
      { provide: PROJECTIONS, useValue: infrastructure.projections },
      { provide: LedgerMetrics, useValue: infrastructure.metrics },
      { provide: LOG_HORIZON, useValue: logHorizon },
      { provide: EVENT_STREAMS, useValue: new ServerSentEventStreams(infrastructure.eventStore, logger, config.eventStreams) },
      { provide: STATE_CACHE, useValue: stateCache },
      {
        provide: StreamStateStore,
        useValue: new StreamStateStore(infrastructure.eventStore, infrastructure.metrics.watchStateCache(stateCache), clock, {
          // Snapshots live in the read-model database: every backend has one, and they are as disposable as read models.
          snapshots: new SqlSnapshotStore(infrastructure.readModelPool, config.readModelSchema),
          snapshotEvery: config.snapshotEvery,
          onSnapshotError: (error, streamName) =>
            logger.warn({ err: error, streamName }, 'snapshot not read or written; loads replay more events until the next one'),
          // Only this process can open the embedded database, so nobody else appends behind the cache's back.
          soleWriter: config.eventStore.kind === 'embedded',
        }),
      },
      {
        provide: IdempotencyStore,
        useValue: new IdempotencyStore(infrastructure.readModelPool, config.readModelSchema, clock, {
          ttlMs: config.idempotencyTtlHours * 3_600_000,
          leaseMs: IDEMPOTENCY_LEASE_MS,
          soleOwner: config.readModels.kind === 'embedded',
          // One pool for both (embedded, or DATABASE_URL unset or equal to EVENT_STORE_URL): a first attempt claims its
          // key in its first append's statement. Elsewhere (EventStoreDB, two databases) the claim is a statement of its own.
          claimsWithAppends: infrastructure.eventStorePool !== undefined && infrastructure.eventStorePool === infrastructure.readModelPool,
        }),
      },
    ];
    return {
      module: InfrastructureModule,
      providers: [...providers, StateCacheHousekeeping, CommandContext],
      exports: [...providers.map((provider) => provider.provide), CommandContext],
    };
  }
}
