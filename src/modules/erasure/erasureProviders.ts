// What erasure needs beyond the shared providers: the event log's own tables (PostgreSQL / PGlite only) and the snapshot store.
import type { Provider } from '@nestjs/common';
import type { Infrastructure } from '../../app/infrastructure.js';
import type { LedgerConfig } from '../../config/config.js';
import { PostgresEventRedaction } from '../../events/postgres/eventRedaction.js';
import { SqlSnapshotStore } from '../../events/postgres/sqlSnapshotStore.js';
import { EraseConversationHandler } from './commands/eraseConversation.js';
import { ErasureCacheEviction } from './erasureCacheEviction.js';
import { ErasureResumption } from './erasureResumption.js';
import { ERASURE_SNAPSHOTS, EVENT_REDACTION } from './erasureTokens.js';

export function erasureProviders(infrastructure: Infrastructure, config: LedgerConfig): Provider[] {
  const pool = infrastructure.eventStorePool;
  return [
    { provide: EVENT_REDACTION, useValue: pool ? new PostgresEventRedaction(pool, config.eventStoreSchema) : null },
    // The same table StreamStateStore's snapshot store uses (stream_snapshots in the read-model database).
    { provide: ERASURE_SNAPSHOTS, useValue: new SqlSnapshotStore(infrastructure.readModelPool, config.readModelSchema) },
    EraseConversationHandler,
    ErasureCacheEviction,
    ErasureResumption,
  ];
}
