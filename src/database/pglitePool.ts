// SqlPool over embedded PGlite: one connection, handed to one holder at a time in FIFO order.
import { PGlite } from '@electric-sql/pglite';
import type { PooledSqlClient, SqlPool, SqlResult } from './sqlPool.js';

export interface PglitePoolOptions {
  /** A folder for durable data, or undefined for an in-memory database. */
  dataDir?: string;
  /**
   * PostgreSQL's `shared_buffers` (PGlite's default is 128MB). The buffer pool is allocated in the WebAssembly heap,
   * inside the service's own memory, so it is the embedded database's largest fixed cost.
   */
  sharedBuffers?: string;
  /**
   * A dump of a freshly created database to start an empty `dataDir`, or an in-memory database, from instead of
   * running initdb. In memory, a dump set by `startInMemoryDatabasesFrom` comes first.
   */
  initialData?: Blob;
}

// A fresh database runs initdb (seconds of CPU on a cold process); a dump of one just made (PGlite's dumpDataDir) loads
// in a fraction of that. Test runs open hundreds of in-memory databases and set it once per process.
let inMemoryInitialData: Blob | undefined;

/** In-memory databases opened from now on start from `dump`, a dump of a freshly created database (undefined: initdb each). */
export function startInMemoryDatabasesFrom(dump: Blob | undefined): void {
  inMemoryInitialData = dump;
}

/**
 * PGlite runs one connection and one transaction at a time, so a "connection" here is a lease on
 * the whole database. Holders queue; a transaction cannot interleave with another holder's queries.
 */
export class PglitePool implements SqlPool {
  readonly kind = 'pglite' as const;
  private tail: Promise<void> = Promise.resolve();
  private ended = false;

  private constructor(readonly db: PGlite) {}

  static async open(options: PglitePoolOptions = {}): Promise<PglitePool> {
    const startParams = options.sharedBuffers ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffers}`] : undefined;
    const initialData = options.dataDir ? options.initialData : (inMemoryInitialData ?? options.initialData);
    const from = { ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...(initialData ? { loadDataDir: initialData } : {}) };
    const db = await PGlite.create({ ...from, ...(startParams ? { startParams } : {}) });
    return new PglitePool(db);
  }

  async query<Row>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
    const client = await this.connect();
    try {
      return await client.query<Row>(text, params);
    } finally {
      client.release();
    }
  }

  async connect(): Promise<PooledSqlClient> {
    if (this.ended) throw new Error('the embedded database is closed');
    let releaseLease!: () => void;
    const lease = new Promise<void>((resolve) => (releaseLease = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => lease);
    await previous;
    const db = this.db;
    let released = false;
    return {
      async query<Row>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
        if (released) throw new Error('query on a released embedded connection');
        const result = await db.query<Row>(text, params as unknown[]);
        const command = (result as { command?: string }).command;
        const rowCount = command === 'SELECT' ? result.rows.length : (result.affectedRows ?? result.rows.length);
        return { rows: result.rows, rowCount, command };
      },
      release() {
        if (released) return;
        released = true;
        releaseLease();
      },
    };
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.tail;
    await this.db.close();
  }
}
