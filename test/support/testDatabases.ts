// Isolated databases for tests: a fresh in-memory PGlite, or a fresh schema (or a database of its own) on the
// PostgreSQL of TEST_DATABASE_URL.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PglitePool } from '../../src/database/pglitePool.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import type { SqlPool } from '../../src/database/sqlPool.js';

export interface TestDatabase {
  label: 'pglite' | 'postgres';
  pool: SqlPool;
  schema: string;
  connectionString?: string;
  dispose(): Promise<void>;
}

export function uniqueSchema(prefix = 'test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export async function openPgliteDatabase(): Promise<TestDatabase> {
  const pool = await PglitePool.open();
  return { label: 'pglite', pool, schema: 'ledger', dispose: () => pool.end() };
}

export async function openPostgresDatabase(connectionString: string, max = 10): Promise<TestDatabase> {
  const schema = uniqueSchema();
  const pool = new PostgresPool({ connectionString, max });
  return {
    label: 'postgres',
    pool,
    schema,
    connectionString,
    async dispose() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

/**
 * A database of its own on the test server, dropped by `dispose`. The log's readers wait for every transaction running
 * in their database, so a test that counts what they read must not share one with the other files running beside it.
 */
export async function openOwnPostgresDatabase(connectionString: string, max = 10): Promise<TestDatabase> {
  const name = `ledger_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  const own = await openPostgresDatabase(url.toString(), max);
  return {
    ...own,
    async dispose() {
      await own.pool.end();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

export type BackendLabel = 'pglite' | 'postgres';

/**
 * The backends the suites run on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set; TEST_BACKENDS (a comma list
 * of `pglite`, `postgres`) narrows that, so that CI's PostgreSQL pass does not run the PGlite cases a second time.
 */
export function backendsUnderTest(): BackendLabel[] {
  const url = process.env.TEST_DATABASE_URL;
  const chosen = process.env.TEST_BACKENDS?.trim();
  if (!chosen) return url ? ['pglite', 'postgres'] : ['pglite'];
  const labels = chosen.split(',').map((label) => label.trim());
  for (const label of labels)
    if (label !== 'pglite' && label !== 'postgres') throw new Error(`TEST_BACKENDS: unknown backend ${JSON.stringify(label)} (pglite, postgres)`);
  if (labels.includes('postgres') && !url) throw new Error('TEST_BACKENDS names postgres: set TEST_DATABASE_URL too');
  return (['pglite', 'postgres'] as const).filter((label) => labels.includes(label));
}

/**
 * Every backend a database test should run on here (backendsUnderTest). `ownDatabase`: on PostgreSQL, a database of
 * its own (openOwnPostgresDatabase) rather than a schema in the shared one.
 */
export function testBackends(options: { ownDatabase?: boolean } = {}): Array<{ label: BackendLabel; open: () => Promise<TestDatabase> }> {
  const url = process.env.TEST_DATABASE_URL;
  const openPostgres = options.ownDatabase ? openOwnPostgresDatabase : openPostgresDatabase;
  return backendsUnderTest().map((label) => (label === 'pglite' ? { label, open: openPgliteDatabase } : { label, open: () => openPostgres(url!) }));
}
