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

/**
 * Splits a migration into statements at the semicolons that end them: not those inside quotes ('…', "…"),
 * comments, or dollar-quoted bodies ($$ … $$, $tag$ … $tag$), so a migration can define a plpgsql function.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let index = 0;
  while (index < sql.length) {
    const char = sql[index]!;
    if (char === ';') {
      statements.push(sql.slice(start, index));
      start = index + 1;
      index += 1;
    } else {
      index = skipQuotedOrComment(sql, index);
    }
  }
  statements.push(sql.slice(start));
  return statements.map((statement) => statement.trim()).filter((statement) => statement.length > 0);
}

/** From `index`: past the quoted text or comment that starts there, else past one character. */
function skipQuotedOrComment(sql: string, index: number): number {
  const char = sql[index]!;
  const closeAfter = (closing: string, from: number) => {
    const end = sql.indexOf(closing, from);
    if (end < 0) throw new Error(`unterminated ${closing} in migration SQL`);
    return end + closing.length;
  };
  // A doubled quote inside '…' or "…" is an escaped quote: skipping to the next quote and rescanning covers it.
  if (char === "'" || char === '"') return closeAfter(char, index + 1);
  if (sql.startsWith('--', index)) {
    const end = sql.indexOf('\n', index);
    return end < 0 ? sql.length : end + 1;
  }
  if (sql.startsWith('/*', index)) return closeAfter('*/', index + 2);
  if (char === '$' && !/[A-Za-z0-9_$]/.test(sql[index - 1] ?? ' ')) {
    // $1 is a parameter, $$ and $tag$ open a body that only the same tag closes; a $ inside a name is neither.
    const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(index))?.[0];
    if (tag) return closeAfter(tag, index + tag.length);
  }
  return index + 1;
}
