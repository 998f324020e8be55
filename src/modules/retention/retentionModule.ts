// Retention: POST /v1/admin/retention, the scheduled application of RETENTION_*, and its resumption after a crash (PostgreSQL / PGlite only).
import { type DynamicModule, Module } from '@nestjs/common';
import type { LedgerConfig } from '../../config/config.js';
import { PostgresEventRedaction } from '../../events/postgres/eventRedaction.js';
import { PostgresRetentionCandidates } from '../../events/postgres/retentionCandidates.js';
import { SqlSnapshotStore } from '../../events/postgres/sqlSnapshotStore.js';
import type { ErasurePools } from '../erasure/erasureModule.js';
import { ApplyRetentionHandler } from './commands/applyRetention.js';
import { RetentionController } from './retentionController.js';
import { RetentionScheduler } from './retentionScheduler.js';
import { RETENTION_TABLES, type RetentionTables } from './retentionTables.js';

@Module({})
export class RetentionModule {
  static register(infrastructure: ErasurePools, config: LedgerConfig): DynamicModule {
    const pool = infrastructure.eventStorePool;
    const tables: RetentionTables | null = pool
      ? {
          redaction: new PostgresEventRedaction(pool, config.eventStoreSchema),
          candidates: new PostgresRetentionCandidates(pool, config.eventStoreSchema),
          // The same table StreamStateStore's snapshot store uses (stream_snapshots in the read-model database).
          snapshots: new SqlSnapshotStore(infrastructure.readModelPool, config.readModelSchema),
        }
      : null;
    return {
      module: RetentionModule,
      controllers: [RetentionController],
      providers: [{ provide: RETENTION_TABLES, useValue: tables }, ApplyRetentionHandler, RetentionScheduler],
    };
  }
}
