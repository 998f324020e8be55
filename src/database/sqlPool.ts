// The one database connection shape used by the event store and (through a pg-compatible driver) TypeORM.

export interface SqlResult<Row> {
  rows: Row[];
  rowCount: number;
  /** SELECT, INSERT, UPDATE, ... as the server reports it. */
  command?: string;
}

export interface SqlClient {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>>;
}

export interface PooledSqlClient extends SqlClient {
  /** Returns the connection; pass the error that broke it so it is not reused. */
  release(error?: Error): void;
}

export interface SqlPool extends SqlClient {
  readonly kind: 'postgres' | 'pglite';
  connect(): Promise<PooledSqlClient>;
  end(): Promise<void>;
}

/** Runs `work` inside BEGIN/COMMIT on one connection, rolling back on any error. */
export async function inTransaction<T>(pool: SqlPool, work: (client: SqlClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
      client.release();
    } catch (rollbackError) {
      client.release(rollbackError as Error);
    }
    throw error;
  }
}
