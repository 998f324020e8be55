// The Nest application: infrastructure as providers, one module per capability, global guard/filter/interceptor.
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import type { Clock } from '../clock.js';
import type { LedgerConfig } from '../config/config.js';
import { BearerTokenGuard } from '../http/auth.js';
import { LedgerExceptionFilter } from '../http/errorFilter.js';
import { ReadYourWritesInterceptor } from '../http/readYourWrites.js';
import { IdempotencyInterceptor } from '../idempotency/idempotencyInterceptor.js';
import { IDEMPOTENCY_LEASE_MS, IdempotencyStore } from '../idempotency/idempotencyStore.js';
import { CLOCK, CONFIG, STATE_CACHE, EVENT_STORE, EVENT_STREAMS, LOG_HORIZON, LOGGER, PROJECTIONS, READ_MODELS } from './tokens.js';
import type { Logger } from '../logging/logger.js';
import { LedgerMetrics } from '../metrics/ledgerMetrics.js';
import { MetricsController } from '../metrics/metricsController.js';
import { ProjectionsController } from '../modules/admin/projectionsController.js';
import { PruneController } from '../modules/admin/pruneController.js';
import { ErasureController } from '../modules/erasure/erasureController.js';
import { erasureProviders } from '../modules/erasure/erasureProviders.js';
import { StreamsController } from '../modules/admin/streamsController.js';
import { PruneConversationsHandler } from '../modules/conversations/commands/pruneConversations.js';
import { ChangeConversationHandler } from '../modules/conversations/commands/changeConversation.js';
import { ResolveSessionHandler } from '../modules/conversations/commands/resolveSession.js';
import { ConversationsController } from '../modules/conversations/conversationsController.js';
import { QueueController } from '../modules/conversations/queueController.js';
import { RecordGatewayStartedHandler } from '../modules/gateways/commands/recordGatewayStart.js';
import { RecordGatewayStoppedHandler, RecordGatewayStoppingHandler } from '../modules/gateways/commands/recordGatewayStop.js';
import { GatewaysController } from '../modules/gateways/gatewaysController.js';
import { HealthController } from '../modules/health/healthController.js';
import { ChangeRuntimeSessionHandler } from '../modules/runtime/commands/changeRuntimeSession.js';
import { DetachRuntimeHandler } from '../modules/runtime/commands/detachRuntime.js';
import { EndConversationRuntimeHandler } from '../modules/runtime/commands/endConversationRuntime.js';
import { RequestRuntimeInterruptHandler } from '../modules/runtime/commands/requestRuntimeInterrupt.js';
import { StartRuntimeTurnHandler } from '../modules/runtime/commands/startRuntimeTurn.js';
import { ConversationRuntimeController } from '../modules/runtime/conversationRuntimeController.js';
import { RuntimeSessionsController } from '../modules/runtime/runtimeSessionsController.js';
import { RuntimeWatchdog } from '../modules/runtime/runtimeWatchdog.js';
import { ChangeJobHandler } from '../modules/jobs/commands/changeJob.js';
import { FireJobHandler } from '../modules/jobs/commands/fireJob.js';
import { ImportJobsHandler, ScheduleJobHandler } from '../modules/jobs/commands/scheduleJob.js';
import { JobFiresStreamController } from '../modules/jobs/delivery/jobFiresStreamController.js';
import { EventStreamController } from '../modules/eventFeed/eventStreamController.js';
import { JobWebhookDelivery } from '../modules/jobs/delivery/jobWebhookDelivery.js';
import { JobsController } from '../modules/jobs/jobsController.js';
import { JobTicker } from '../modules/jobs/jobTicker.js';
import { SessionsQueryController } from '../modules/sessions/sessionsQueryController.js';
import { CommandContext } from '../modules/commandContext.js';
import { ChangeSessionHandler } from '../modules/sessions/commands/changeSession.js';
import { SessionsController } from '../modules/sessions/sessionsController.js';
import { DestroySessionHandler } from '../modules/sessions/commands/destroySession.js';
import { SpawnChildSessionHandler } from '../modules/sessions/commands/spawnChildSession.js';
import { SessionCheckpointsController } from '../modules/sessions/sessionCheckpointsController.js';
import { SessionContextController } from '../modules/sessions/sessionContextController.js';
import { SessionHistoryController } from '../modules/sessions/sessionHistoryController.js';
import { SessionTreeController } from '../modules/sessions/sessionTreeController.js';
import { SqlSnapshotStore } from '../events/postgres/sqlSnapshotStore.js';
import { approximateJsonSize } from '../events/approximateJsonSize.js';
import { BoundedStateCache } from '../events/boundedStateCache.js';
import { StateCacheHousekeeping } from './stateCacheHousekeeping.js';
import { stateHasTurnInFlight } from './stateHasTurnInFlight.js';
import { StreamStateStore } from '../events/streamStateStore.js';
import { LogHorizonProbe } from '../events/postgres/logHorizon.js';
import { ServerSentEventStreams } from '../http/serverSentEventStreams.js';
import type { Infrastructure } from './infrastructure.js';

export interface AppDependencies {
  config: LedgerConfig;
  logger: Logger;
  clock: Clock;
  infrastructure: Infrastructure;
}

@Module({})
export class AppModule {
  static register({ config, logger, clock, infrastructure }: AppDependencies): DynamicModule {
    // Only a PostgreSQL server has other sessions whose transactions can hold the log's readers back.
    const logHorizon =
      config.eventStore.kind === 'postgres' && infrastructure.eventStorePool ? new LogHorizonProbe(infrastructure.eventStorePool, clock) : null;
    if (logHorizon) infrastructure.metrics.watchLogHorizon(logHorizon);
    const shared = [
      { provide: CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
      { provide: CLOCK, useValue: clock },
      { provide: EVENT_STORE, useValue: infrastructure.eventStore },
      { provide: READ_MODELS, useValue: infrastructure.readModels },
      { provide: PROJECTIONS, useValue: infrastructure.projections },
      { provide: LedgerMetrics, useValue: infrastructure.metrics },
      { provide: LOG_HORIZON, useValue: logHorizon },
      { provide: EVENT_STREAMS, useValue: new ServerSentEventStreams(infrastructure.eventStore, logger, config.eventStreams) },
    ];
    const stateCache = new BoundedStateCache({
      maxEntries: config.cacheMaxEntries,
      maxBytes: config.cacheMaxBytes,
      idleTtlMs: config.cacheIdleTtlSeconds * 1000,
      isInFlight: stateHasTurnInFlight,
      sizeOf: approximateJsonSize,
    });
    return {
      module: AppModule,
      global: true,
      imports: [CqrsModule.forRoot()],
      controllers: [
        HealthController,
        ProjectionsController,
        StreamsController,
        PruneController,
        ErasureController,
        ConversationsController,
        QueueController,
        GatewaysController,
        SessionsController,
        SessionsQueryController,
        SessionCheckpointsController,
        SessionContextController,
        SessionTreeController,
        SessionHistoryController,
        JobFiresStreamController,
        EventStreamController,
        JobsController,
        ConversationRuntimeController,
        RuntimeSessionsController,
        MetricsController,
      ],
      providers: [
        ...shared,
        { provide: STATE_CACHE, useValue: stateCache },
        StateCacheHousekeeping,
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
        CommandContext,
        ResolveSessionHandler,
        ChangeConversationHandler,
        ChangeSessionHandler,
        SpawnChildSessionHandler,
        DestroySessionHandler,
        ScheduleJobHandler,
        ImportJobsHandler,
        ChangeJobHandler,
        FireJobHandler,
        JobTicker,
        JobWebhookDelivery,
        PruneConversationsHandler,
        RecordGatewayStartedHandler,
        RecordGatewayStoppingHandler,
        RecordGatewayStoppedHandler,
        StartRuntimeTurnHandler,
        DetachRuntimeHandler,
        EndConversationRuntimeHandler,
        RequestRuntimeInterruptHandler,
        ChangeRuntimeSessionHandler,
        RuntimeWatchdog,
        ...erasureProviders(infrastructure, config),
        { provide: APP_GUARD, useClass: BearerTokenGuard },
        { provide: APP_FILTER, useClass: LedgerExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor },
        {
          provide: IdempotencyStore,
          useValue: new IdempotencyStore(infrastructure.readModelPool, config.readModelSchema, clock, {
            ttlMs: config.idempotencyTtlHours * 3_600_000,
            leaseMs: IDEMPOTENCY_LEASE_MS,
            soleOwner: config.readModels.kind === 'embedded',
          }),
        },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
      ],
      exports: shared.map((provider) => provider.provide),
    };
  }
}
