// Isolated databases for tests: a fresh in-memory PGlite, or a fresh schema on the PostgreSQL of TEST_DATABASE_URL.
import { randomBytes } from 'node:crypto';
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

/** Every backend a database test should run on here: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function testBackends(): Array<{ label: 'pglite' | 'postgres'; open: () => Promise<TestDatabase> }> {
  const backends: Array<{ label: 'pglite' | 'postgres'; open: () => Promise<TestDatabase> }> = [{ label: 'pglite', open: openPgliteDatabase }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) backends.push({ label: 'postgres', open: () => openPostgresDatabase(url) });
  return backends;
}
