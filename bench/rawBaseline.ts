// The baseline: the same rows written and read with plain SQL on the bare driver, so the store's overhead is a ratio.
import pg from 'pg';
import { quoteIdentifier } from '../src/database/migrate.js';
import type { PglitePool } from '../src/database/pglitePool.js';
import type { PlannedAppend } from './workload.js';

interface RawConnection {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  release(): void;
}

interface RawDatabase {
  connect(): Promise<RawConnection>;
  end(): Promise<void>;
}

/** node-postgres with nothing in between, as many connections as the store's pool. */
export function rawPostgres(connectionString: string, max: number): RawDatabase {
  const pool = new pg.Pool({ connectionString, max });
  return { connect: () => pool.connect(), end: () => pool.end() };
}

/**
 * PGlite's own `db.query`, under the store's pool lease: PGlite has one connection, so a transaction
 * must hold it, and the baseline serialises exactly as the store does.
 */
export function rawPglite(pool: PglitePool): RawDatabase {
  return {
    async connect() {
      const lease = await pool.connect();
      return { query: (text, params) => pool.db.query(text, params), release: () => lease.release() };
    },
    end: async () => undefined,
  };
}

const COLUMNS = 'stream_name, revision, event_id, type, data, metadata';

/** A bare table: a bigserial key and the event's columns, no other index or constraint. */
export class RawBaseline {
  private constructor(
    private readonly database: RawDatabase,
    private readonly table: string,
  ) {}

  static async create(database: RawDatabase, schema: string): Promise<RawBaseline> {
    const table = `${quoteIdentifier(schema)}.raw_events`;
    await withConnection(database, async (connection) => {
      await connection.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
      await connection.query(
        `CREATE TABLE ${table} (id bigserial PRIMARY KEY, stream_name text NOT NULL, revision bigint NOT NULL,
          event_id uuid NOT NULL, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL)`,
      );
    });
    return new RawBaseline(database, table);
  }

  /** One event: BEGIN/INSERT/COMMIT, as a command handler's append would be. Several: one multi-row INSERT. */
  async append(append: PlannedAppend): Promise<void> {
    const params = append.events.flatMap((event, index) => [
      append.streamName,
      append.revision + index,
      event.id,
      event.type,
      JSON.stringify(event.data),
      JSON.stringify(event.metadata),
    ]);
    const rows = append.events.map((_, index) => {
      const p = index * 6;
      return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}::jsonb, $${p + 6}::jsonb)`;
    });
    const insert = `INSERT INTO ${this.table} (${COLUMNS}) VALUES ${rows.join(', ')}`;
    await withConnection(this.database, async (connection) => {
      if (append.events.length > 1) {
        await connection.query(insert, params);
        return;
      }
      await connection.query('BEGIN');
      await connection.query(insert, params);
      await connection.query('COMMIT');
    });
  }

  /** Reads the whole table by key in pages of `pageSize`; returns how many rows came back. */
  async readAll(pageSize: number): Promise<number> {
    let after = 0;
    let total = 0;
    for (;;) {
      const page = await withConnection(this.database, (connection) =>
        connection.query(`SELECT id, ${COLUMNS} FROM ${this.table} WHERE id > $1 ORDER BY id LIMIT $2`, [after, pageSize]),
      );
      const rows = page.rows as Array<{ id: string | number }>;
      total += rows.length;
      if (rows.length < pageSize) return total;
      after = Number(rows[rows.length - 1]!.id);
    }
  }

  async close(): Promise<void> {
    await this.database.end();
  }
}

async function withConnection<T>(database: RawDatabase, work: (connection: RawConnection) => Promise<T>): Promise<T> {
  const connection = await database.connect();
  try {
    return await work(connection);
  } finally {
    connection.release();
  }
}
