// Erasure: POST /v1/admin/erase, the redaction of the event log's own tables (PostgreSQL / PGlite only), the eviction
// of erased state from the cache, and the resumption of an erasure a crash cut short.
import { type DynamicModule, Module } from '@nestjs/common';
import type { LedgerConfig } from '../../config/config.js';
import type { SqlPool } from '../../database/sqlPool.js';
import { PostgresEventRedaction } from '../../events/postgres/eventRedaction.js';
import { SqlSnapshotStore } from '../../events/postgres/sqlSnapshotStore.js';
import { EraseConversationHandler } from './commands/eraseConversation.js';
import { ErasureCacheEviction } from './erasureCacheEviction.js';
import { ErasureController } from './erasureController.js';
import { ErasureResumption } from './erasureResumption.js';
import { ERASURE_SNAPSHOTS, EVENT_REDACTION } from './erasureTokens.js';

/** The pools erasure works on: the event store's (absent on EventStoreDB, whose log it cannot redact) and the read models'. */
export interface ErasurePools {
  eventStorePool?: SqlPool;
  readModelPool: SqlPool;
}

@Module({})
export class ErasureModule {
  static register(infrastructure: ErasurePools, config: LedgerConfig): DynamicModule {
    const pool = infrastructure.eventStorePool;
    return {
      module: ErasureModule,
      controllers: [ErasureController],
      providers: [
        { provide: EVENT_REDACTION, useValue: pool ? new PostgresEventRedaction(pool, config.eventStoreSchema) : null },
        // The same table StreamStateStore's snapshot store uses (stream_snapshots in the read-model database).
        { provide: ERASURE_SNAPSHOTS, useValue: new SqlSnapshotStore(infrastructure.readModelPool, config.readModelSchema) },
        EraseConversationHandler,
        ErasureCacheEviction,
        ErasureResumption,
      ],
    };
  }
}
