// What retention works on besides the shared providers: the event log's own tables (absent on EventStoreDB) and the snapshots.
import type { PostgresEventRedaction } from '../../events/postgres/eventRedaction.js';
import type { PostgresRetentionCandidates } from '../../events/postgres/retentionCandidates.js';
import type { SnapshotStore } from '../../events/snapshotStore.js';

export interface RetentionTables {
  redaction: PostgresEventRedaction;
  candidates: PostgresRetentionCandidates;
  snapshots: SnapshotStore;
}

/** Injection token of RetentionTables; null on EventStoreDB, whose events cannot be rewritten in place. */
export const RETENTION_TABLES = Symbol('RetentionTables');
