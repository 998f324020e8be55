// The event log's read horizon on PostgreSQL: the oldest transaction still running anywhere on the server, which
// readers may not pass (postgresEventStore.ts), and who holds it.
import type { Clock } from '../../clock.js';
import type { SqlPool } from '../../database/sqlPool.js';

/** Injection token of the PostgreSQL log's read horizon (LogHorizonProbe), or null on backends without one (PGlite, EventStoreDB). */
export const LOG_HORIZON = Symbol('LogHorizon');

/** The transaction that keeps readers of the log from going further. */
export interface HorizonHolder {
  /** Its backend's process id; null when it is a prepared transaction, or this role may not see the backend (needs pg_read_all_stats). */
  pid: number | null;
  /** The database it runs in, which need not be the log's: null when unknown. */
  database: string | null;
  /** Since it began (its backend's xact_start), or since this instance first saw the horizon stand there when the backend is hidden. */
  heldSeconds: number;
}

export interface LogHorizon {
  /** Events at this position and after it are not readable yet (position = transaction id << 16 + index). */
  firstUnreadablePosition: number;
  /** No transaction that has started could write at this position or after it (the next transaction id, shifted). */
  firstUnassignedPosition: number;
  /** null: no transaction is running, nothing holds readers back. */
  holder: HorizonHolder | null;
}

interface HorizonRow {
  xmin: string;
  next_xid: string;
  pid: number | null;
  database: string | null;
  held_seconds: number | null;
  holder_xid: string | null;
}

// The snapshot's xmin is the lowest transaction id still running, in any database of the server. Every running
// transaction with an id shows in pg_stat_activity.backend_xid (visible to superusers and pg_read_all_stats) or in
// pg_prepared_xacts; the oldest of them is the horizon unless the one that is older is hidden from this role.
const HORIZON_SQL = `
  SELECT h.xmin::text AS xmin, h.next_xid::text AS next_xid, r.pid, r.database, r.held_seconds, r.xid::text AS holder_xid
  FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin, pg_snapshot_xmax(pg_current_snapshot()) AS next_xid) AS h
  LEFT JOIN LATERAL (
    SELECT * FROM (
      SELECT a.pid, a.datname::text AS database, extract(epoch FROM clock_timestamp() - a.xact_start)::float8 AS held_seconds, a.backend_xid AS xid
      FROM pg_stat_activity AS a WHERE a.backend_xid IS NOT NULL
      UNION ALL
      SELECT NULL::int, p.database::text, extract(epoch FROM clock_timestamp() - p.prepared)::float8, p.transaction
      FROM pg_prepared_xacts AS p
    ) AS running ORDER BY age(running.xid) DESC LIMIT 1
  ) AS r ON true`;

const XID_MODULUS = 2n ** 32n;

export class LogHorizonProbe {
  // A horizon whose holder this role cannot see is timed from when this instance first saw it stand still.
  private firstSeen?: { xmin: string; at: number };

  constructor(
    private readonly pool: SqlPool,
    private readonly clock: Clock,
  ) {}

  async read(): Promise<LogHorizon> {
    const { rows } = await this.pool.query<HorizonRow>(HORIZON_SQL);
    const row = rows[0]!;
    const firstUnreadablePosition = Number(BigInt(row.xmin) << 16n);
    const firstUnassignedPosition = Number(BigInt(row.next_xid) << 16n);
    if (row.xmin === row.next_xid) {
      this.firstSeen = undefined;
      return { firstUnreadablePosition, firstUnassignedPosition, holder: null };
    }
    // backend_xid is the 32-bit form of the 64-bit snapshot xmin.
    if (row.holder_xid !== null && BigInt(row.holder_xid) === BigInt(row.xmin) % XID_MODULUS) {
      this.firstSeen = undefined;
      return {
        firstUnreadablePosition,
        firstUnassignedPosition,
        holder: { pid: row.pid, database: row.database, heldSeconds: Math.max(0, row.held_seconds ?? 0) },
      };
    }
    const now = this.clock.now().getTime();
    if (this.firstSeen?.xmin !== row.xmin) this.firstSeen = { xmin: row.xmin, at: now };
    return { firstUnreadablePosition, firstUnassignedPosition, holder: { pid: null, database: null, heldSeconds: (now - this.firstSeen.at) / 1000 } };
  }
}

/** How a holder is named in answers and logs. */
export function describeHorizonHolder(holder: HorizonHolder): string {
  const who =
    holder.pid !== null
      ? `backend pid ${holder.pid}`
      : holder.database !== null
        ? 'a prepared transaction'
        : 'a transaction this service cannot see (grant its role pg_read_all_stats to name it)';
  const where = holder.database === null ? '' : ` in database "${holder.database}"`;
  return `${who}${where}, open for ${Math.round(holder.heldSeconds)} s`;
}
