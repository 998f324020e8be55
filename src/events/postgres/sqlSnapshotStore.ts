// Snapshots in a PostgreSQL/PGlite table (the read-model database, which every backend has, EventStoreDB included).
import { quoteIdentifier } from '../../database/migrate.js';
import type { SqlPool } from '../../database/sqlPool.js';
import type { SnapshotStore, StreamSnapshot } from '../snapshotStore.js';

interface SnapshotRow {
  revision: string | number;
  position: string | number;
  state: string;
}

/**
 * The state is stored as JSON text, not jsonb: jsonb reorders object keys, and a state read back must
 * serialise exactly like the one folded in memory.
 */
export class SqlSnapshotStore implements SnapshotStore {
  private readonly table: string;

  constructor(
    private readonly pool: SqlPool,
    schema: string,
  ) {
    this.table = `${quoteIdentifier(schema)}.stream_snapshots`;
  }

  async read(streamName: string, version: string, atOrBefore = Number.MAX_SAFE_INTEGER): Promise<StreamSnapshot | undefined> {
    const { rows } = await this.pool.query<SnapshotRow>(
      `SELECT revision, position, state FROM ${this.table} WHERE stream_name = $1 AND state_version = $2 AND revision <= $3`,
      [streamName, version, atOrBefore],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { streamName, version, revision: Number(row.revision), position: Number(row.position), state: JSON.parse(row.state) };
  }

  async write(snapshot: StreamSnapshot): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} AS current (stream_name, state_version, revision, position, state, taken_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (stream_name) DO UPDATE SET state_version = excluded.state_version, revision = excluded.revision,
         position = excluded.position, state = excluded.state, taken_at = excluded.taken_at
       WHERE current.revision < excluded.revision OR current.state_version <> excluded.state_version`,
      [snapshot.streamName, snapshot.version, snapshot.revision, snapshot.position, JSON.stringify(snapshot.state)],
    );
  }

  async delete(streamName: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE stream_name = $1`, [streamName]);
  }
}
