// Where a benchmarked service keeps its data: a fresh PGlite folder, or fresh schemas on BENCH_DATABASE_URL.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { PglitePool } from '../../src/database/pglitePool.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import type { SqlPool } from '../../src/database/sqlPool.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';

export type ServiceBackend = 'pglite' | 'postgres';

export interface OpenedStorage {
  pool: SqlPool;
  store: PostgresEventStore;
  eventStoreSchema: string;
  readModelSchema: string;
  close(): Promise<void>;
}

export interface ServiceStorage {
  backend: ServiceBackend;
  /** The environment that points a service at this storage. */
  env: Record<string, string>;
  /** Opens the storage in this process (seeding, rebuilds). PGlite allows one process at a time: close before a service starts. */
  open(options?: { poolSize?: number }): Promise<OpenedStorage>;
  dispose(): Promise<void>;
}

/** The service's own defaults for an embedded data folder: `<DATA_DIR>/pglite`, schemas `ledger` and `ledger_read`. */
const EMBEDDED_SCHEMAS = { eventStoreSchema: 'ledger', readModelSchema: 'ledger_read' };

export async function createServiceStorage(backend: ServiceBackend, postgresUrl: string | undefined, label: string): Promise<ServiceStorage> {
  if (backend === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), `ledger-bench-${label}-`));
    return {
      backend,
      env: { DATA_DIR: dataDir },
      async open() {
        const pool = await PglitePool.open({ dataDir: join(dataDir, 'pglite') });
        const store = await PostgresEventStore.open(pool, { schema: EMBEDDED_SCHEMAS.eventStoreSchema });
        return { pool, store, ...EMBEDDED_SCHEMAS, close: () => closeAll(store, pool) };
      },
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  if (!postgresUrl) throw new Error('the postgres backend needs BENCH_DATABASE_URL');
  // Our own schemas, created here and dropped at the end: nothing else in the database is touched.
  const prefix = `bench_${label.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const schemas = { eventStoreSchema: `${prefix}_es`, readModelSchema: `${prefix}_rm` };
  return {
    backend,
    env: { EVENT_STORE_URL: postgresUrl, EVENT_STORE_SCHEMA: schemas.eventStoreSchema, READ_MODEL_SCHEMA: schemas.readModelSchema },
    async open(options = {}) {
      const pool = new PostgresPool({ connectionString: postgresUrl, max: options.poolSize ?? 16, applicationName: 'session-ledger-bench' });
      const store = await PostgresEventStore.open(pool, { schema: schemas.eventStoreSchema, listenConnectionString: postgresUrl });
      return { pool, store, ...schemas, close: () => closeAll(store, pool) };
    },
    async dispose() {
      const pool = new PostgresPool({ connectionString: postgresUrl, max: 1 });
      try {
        for (const schema of Object.values(schemas)) await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      } finally {
        await pool.end();
      }
    },
  };
}

async function closeAll(store: PostgresEventStore, pool: SqlPool): Promise<void> {
  await store.close();
  await pool.end();
}
