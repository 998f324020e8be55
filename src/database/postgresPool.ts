// SqlPool over a real PostgreSQL server through node-postgres.
import pg from 'pg';
import type { PooledSqlClient, SqlPool, SqlResult } from './sqlPool.js';

export interface PostgresPoolOptions {
  connectionString: string;
  max?: number;
  applicationName?: string;
  /** Where unqualified names resolve; every connection gets it. */
  searchPath?: string;
  connectionTimeoutMillis?: number;
}

export class PostgresPool implements SqlPool {
  readonly kind = 'postgres' as const;
  readonly native: pg.Pool;

  constructor(readonly options: PostgresPoolOptions) {
    this.native = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 10,
      application_name: options.applicationName ?? 'session-ledger',
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
      options: options.searchPath ? `-c search_path=${options.searchPath}` : undefined,
    });
    // An idle connection that dies (server restart) must not crash the process; the pool replaces it.
    this.native.on('error', () => undefined);
    // A server's "terminating connection" can reach a client in the same network read that hands it to its next
    // borrower, before anyone listens: an 'error' event with no listener ends the process. Every client listens
    // for good; the broken one still fails its next query (a 503) and the pool drops it on release.
    this.native.on('connect', (client) => client.on('error', () => undefined));
  }

  async query<Row>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
    const result = await this.native.query(text, params as unknown[]);
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0, command: result.command };
  }

  async connect(): Promise<PooledSqlClient> {
    const client = await this.native.connect();
    // The pool stops listening to a client it hands out: a connection that dies between two queries (server
    // restart, pg_terminate_backend, a cut network) would be an unhandled 'error' event, which ends the process.
    // Keep the error instead, so the release discards the connection.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    return {
      async query<Row>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
        const result = await client.query(text, params as unknown[]);
        return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0, command: result.command };
      },
      release: (error?: Error) => {
        client.removeListener('error', onError);
        client.release(error ?? broken);
      },
    };
  }

  async end(): Promise<void> {
    await this.native.end();
  }
}
