// Applies numbered SQL migrations once, under an advisory lock so instances starting together don't race.
import type { SqlPool } from './sqlPool.js';

export interface Migration {
  id: number;
  name: string;
  /** SQL with `{schema}` standing for the quoted schema name. */
  sql: string;
}

export function quoteIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid SQL identifier: ${name}`);
  return `"${name}"`;
}

/** `component` names the migration set (event store, read models): each keeps its own history. */
export async function migrate(pool: SqlPool, schema: string, component: string, migrations: readonly Migration[]): Promise<void> {
  const s = quoteIdentifier(schema);
  const lockKey = `session-ledger:${schema}:${component}`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (component text NOT NULL, id int NOT NULL, name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, id))`,
    );
    const applied = await client.query<{ id: number }>(`SELECT id FROM ${s}.schema_migrations WHERE component = $1`, [component]);
    const done = new Set(applied.rows.map((row) => Number(row.id)));
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      for (const statement of splitStatements(migration.sql.replaceAll('{schema}', s))) {
        await client.query(statement);
      }
      await client.query(`INSERT INTO ${s}.schema_migrations (component, id, name) VALUES ($1, $2, $3)`, [component, migration.id, migration.name]);
    }
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(error as Error);
    throw error;
  }
}

// Migrations are our own SQL with no semicolons inside literals or bodies, so a plain split is enough.
function splitStatements(sql: string): string[] {
  return sql
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
