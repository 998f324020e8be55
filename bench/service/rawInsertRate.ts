// The floor every write figure of the HTTP part is a share of: one-row INSERT + COMMIT transactions on the bare driver.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { PglitePool } from '../../src/database/pglitePool.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import { inParallel, measureRate } from '../measure.js';
import { RawBaseline, rawPglite, rawPostgres } from '../rawBaseline.js';
import { planWorkload } from '../workload.js';
import type { ServiceBackend } from './serviceStorage.js';

/** One-row transactions per raw baseline run (the http and peers parts run one before the service starts and one after it stops). */
export const RAW_TRANSACTIONS: Record<ServiceBackend, number> = { postgres: 5_000, pglite: 2_000 };

/**
 * Transactions/s of `clients` concurrent clients, each looping BEGIN / one-row INSERT / COMMIT into a bare table:
 * `pg` with one connection per client, or PGlite's `db.query` on a data folder of its own (one connection, as the
 * service has). What the database can commit, with no store and no service in the way.
 */
export async function rawInsertRate(backend: ServiceBackend, postgresUrl: string | undefined, clients: number, transactions: number): Promise<number> {
  const schema = `bench_raw_${randomBytes(4).toString('hex')}`;
  if (backend === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'ledger-bench-raw-'));
    const pool = await PglitePool.open({ dataDir: join(dataDir, 'pglite') });
    try {
      return await measure(await RawBaseline.create(rawPglite(pool), schema), clients, transactions);
    } finally {
      await pool.end();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  if (!postgresUrl) throw new Error('the postgres backend needs BENCH_DATABASE_URL');
  const baseline = await RawBaseline.create(rawPostgres(postgresUrl, clients), schema);
  try {
    return await measure(baseline, clients, transactions);
  } finally {
    await baseline.close();
    const pool = new PostgresPool({ connectionString: postgresUrl, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`).finally(() => pool.end());
  }
}

async function measure(baseline: RawBaseline, clients: number, transactions: number): Promise<number> {
  const run = (label: string, events: number) => {
    const plan = planWorkload({ label, writers: clients, events, eventsPerAppend: 1, appendsPerStream: 10 });
    return () =>
      inParallel(clients, async (client) => {
        for (const append of plan[client]!) await baseline.append(append);
      });
  };
  await run('warmup', clients * 10)();
  return (await measureRate(transactions, run('rate', transactions))).eventsPerSecond;
}
