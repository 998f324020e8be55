// The databases a bench run covers, each opened with a fresh schema holding the store's tables and the baseline's.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteIdentifier } from '../src/database/migrate.js';
import { PglitePool } from '../src/database/pglitePool.js';
import { PostgresPool } from '../src/database/postgresPool.js';
import type { SqlPool } from '../src/database/sqlPool.js';
import type { EventStore } from '../src/events/eventStore.js';
import { PostgresEventStore } from '../src/events/postgres/postgresEventStore.js';
import { RawBaseline, rawPglite, rawPostgres } from './rawBaseline.js';

export type BackendName = 'pglite' | 'pglite-durable' | 'postgres';

export interface OpenBackend {
  name: BackendName;
  store: EventStore;
  baseline: RawBaseline;
  settings: DatabaseSettings;
  /** Closes everything and removes what the run wrote. */
  dispose(): Promise<void>;
}

export interface DatabaseSettings {
  serverVersion: string;
  sharedBuffers: string;
  synchronousCommit: string;
}

export interface BackendChoice {
  name: BackendName;
  open(): Promise<OpenBackend>;
}

/** As many connections as concurrent writers, so the pool is not what limits them. */
const POSTGRES_POOL_SIZE = 16;

/** In-memory PGlite and durable PGlite always; PostgreSQL when a connection string is given. */
export function benchBackends(postgresUrl: string | undefined): BackendChoice[] {
  const backends: BackendChoice[] = [
    { name: 'pglite', open: () => openPglite('pglite') },
    { name: 'pglite-durable', open: () => openPglite('pglite-durable') },
  ];
  if (postgresUrl) backends.push({ name: 'postgres', open: () => openPostgres(postgresUrl) });
  return backends;
}

async function openPglite(name: 'pglite' | 'pglite-durable'): Promise<OpenBackend> {
  const dataDir = name === 'pglite-durable' ? await mkdtemp(join(tmpdir(), 'session-ledger-bench-')) : undefined;
  const pool = await PglitePool.open({ dataDir });
  const schema = benchSchema();
  const store = await PostgresEventStore.open(pool, { schema });
  const baseline = await RawBaseline.create(rawPglite(pool), schema);
  return {
    name,
    store,
    baseline,
    settings: await readSettings(pool),
    async dispose() {
      await store.close();
      await baseline.close();
      await pool.end();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(connectionString: string): Promise<OpenBackend> {
  const pool = new PostgresPool({ connectionString, max: POSTGRES_POOL_SIZE, applicationName: 'session-ledger-bench' });
  const schema = benchSchema();
  const dropSchema = () => pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
  try {
    // As in the service: the LISTEN connection is up, so every append's NOTIFY has a listener to reach.
    const store = await PostgresEventStore.open(pool, { schema, listenConnectionString: connectionString });
    const stopListening = store.onAppended(() => undefined);
    const baseline = await RawBaseline.create(rawPostgres(connectionString, POSTGRES_POOL_SIZE), schema);
    return {
      name: 'postgres',
      store,
      baseline,
      settings: await readSettings(pool),
      async dispose() {
        stopListening();
        await store.close();
        await baseline.close();
        await dropSchema();
        await pool.end();
      },
    };
  } catch (error) {
    await dropSchema().catch(() => undefined);
    await pool.end();
    throw error;
  }
}

function benchSchema(): string {
  return `bench_${randomBytes(6).toString('hex')}`;
}

async function readSettings(pool: SqlPool): Promise<DatabaseSettings> {
  const show = async (setting: string) => {
    const result = await pool.query<Record<string, string>>(`SHOW ${setting}`);
    return result.rows[0]?.[setting] ?? '?';
  };
  return { serverVersion: await show('server_version'), sharedBuffers: await show('shared_buffers'), synchronousCommit: await show('synchronous_commit') };
}
