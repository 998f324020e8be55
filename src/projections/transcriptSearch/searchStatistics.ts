// The planner's statistics of the search table, kept by the projection that fills it: PGlite runs no autovacuum, and
// PostgreSQL's comes a minute or more after a bulk load such as a rebuild.
import type { DataSource, EntityManager } from 'typeorm';

/**
 * Without statistics the planner guesses that `tenant = $2` picks a few rows and ANDs the words index with a scan of
 * the whole primary key for it: 348 of a search's 392 ms at 1,000,000 messages. With them it reads the words index alone.
 */
const FIRST_ANALYZE_AFTER = 1_000;

/** Per read-model database: rows this process inserted since its last ANALYZE, and how many call for the next. */
const inserts = new WeakMap<DataSource, { since: number; due: number }>();

/**
 * ANALYZE once this process has inserted 1,000 rows, then each time the table has doubled since: statistics guide
 * the plan by proportions, which a table that grows by less than its size hardly moves, and a rebuild of 1,000,000
 * messages pays for ten. The GIN index's pending list (insertions not yet merged, read in full by every search) is
 * merged at the same time, as autovacuum's ANALYZE would.
 */
export async function keepSearchStatistics(manager: EntityManager, table: string, index: string, inserted: number): Promise<void> {
  const counter = inserts.get(manager.connection) ?? { since: 0, due: FIRST_ANALYZE_AFTER };
  inserts.set(manager.connection, counter);
  counter.since += inserted;
  if (counter.since < counter.due) return;
  await manager.query(`ANALYZE ${table}`);
  await manager.query(`SELECT gin_clean_pending_list($1::regclass)`, [index]);
  const [row]: Array<{ rows: string | number }> = await manager.query(`SELECT reltuples::bigint AS rows FROM pg_class WHERE oid = $1::regclass`, [table]);
  counter.since = 0;
  counter.due = Math.max(FIRST_ANALYZE_AFTER, Number(row?.rows ?? 0));
}
