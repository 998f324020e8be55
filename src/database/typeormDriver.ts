// Presents a SqlPool to TypeORM's PostgreSQL driver as if it were the `pg` module, so read models
// share the event store's connection (embedded PGlite has only one) and its search_path.
import { EventEmitter } from 'node:events';
import type { PooledSqlClient, SqlPool } from './sqlPool.js';

type Callback = (error: Error | null, connection?: unknown, release?: (error?: Error) => void) => void;

class PgCompatibleConnection extends EventEmitter {
  constructor(private readonly client: PooledSqlClient) {
    super();
  }

  async query(text: string, params?: unknown[]) {
    const result = await this.client.query(text, params);
    return { rows: result.rows, rowCount: result.rowCount, command: result.command };
  }
}

/** The subset of `pg`'s module shape that TypeORM's PostgresDriver uses. */
export function pgCompatibleDriver(pool: SqlPool): unknown {
  class Pool extends EventEmitter {
    connect(callback: Callback): void {
      pool.connect().then(
        (client) => {
          const connection = new PgCompatibleConnection(client);
          callback(null, connection, (error?: Error) => client.release(error));
        },
        (error: Error) => callback(error),
      );
    }

    async query(text: string, params?: unknown[]) {
      const result = await pool.query(text, params);
      return { rows: result.rows, rowCount: result.rowCount, command: result.command };
    }

    // The SqlPool's owner closes it; TypeORM closing its view must not close the event store's connection.
    end(callback?: (error?: Error) => void): void {
      callback?.();
    }
  }
  return { Pool };
}
