// The event log's read horizon on PostgreSQL: the oldest transaction still running that can append to the log (one
// in the log's database), which readers may not pass (postgresEventStore.ts), and who holds it.
import type { Clock } from '../../clock.js';
import { quoteIdentifier } from '../../database/migrate.js';
import type { SqlPool } from '../../database/sqlPool.js';

/** Injection token of the PostgreSQL log's read horizon (LogHorizonProbe), or null on backends without one (PGlite, EventStoreDB). */
export const LOG_HORIZON = Symbol('LogHorizon');

/** The transaction that keeps readers of the log from going further. */
export interface HorizonHolder {
  /** Its backend's process id; null when it is a prepared transaction, or it ended before it could be named. */
  pid: number | null;
  /** The database it runs in (the log's own: a transaction elsewhere on the server does not hold readers); null when unknown. */
  database: string | null;
  /** Since it began (its backend's xact_start), or since this instance first saw the horizon stand there when that is hidden from this role. */
  heldSeconds: number;
}

export interface LogHorizon {
  /** Events at this position and after it are not readable yet (position = transaction id << 16 + index). */
  firstUnreadablePosition: number;
  /** Past every transaction that had ended: no committed write stands at this position or after it (the snapshot's xmax, shifted). */
  firstUnassignedPosition: number;
  /** null: no transaction holds readers back. */
  holder: HorizonHolder | null;
}

interface HorizonRow {
  first_unreadable: string;
  first_unassigned: string;
  pid: number | null;
  database: string | null;
  held_seconds: number | null;
}

const XID_MODULUS = 4294967296;

/**
 * The horizon is the event store's own (event-store migration 6), read in the same statement as its holder: one
 * snapshot, and one copy of pg_stat_activity. The holder is the transaction whose id the horizon is, found by its
 * 32-bit backend_xid (visible to every role; xact_start is not without pg_read_all_stats) or as a prepared one.
 */
function horizonSql(schema: string): string {
  return `
  SELECT h.first_unreadable::text AS first_unreadable, h.first_unassigned::text AS first_unassigned, r.pid, r.database, r.held_seconds
  FROM (
    SELECT ${quoteIdentifier(schema)}.first_unreadable_position() AS first_unreadable,
           pg_snapshot_xmax(pg_current_snapshot())::text::bigint << 16 AS first_unassigned
  ) AS h
  LEFT JOIN LATERAL (
    SELECT a.pid, a.datname::text AS database, extract(epoch FROM clock_timestamp() - a.xact_start)::float8 AS held_seconds
    FROM pg_stat_activity AS a WHERE a.backend_xid::text::bigint = (h.first_unreadable >> 16) % ${XID_MODULUS}
    UNION ALL
    SELECT NULL::int, p.database::text, extract(epoch FROM clock_timestamp() - p.prepared)::float8
    FROM pg_prepared_xacts AS p WHERE p.transaction::text::bigint = (h.first_unreadable >> 16) % ${XID_MODULUS}
    LIMIT 1
  ) AS r ON h.first_unreadable < h.first_unassigned`;
}

export class LogHorizonProbe {
  private readonly sql: string;
  // A horizon whose holder's start this role cannot see is timed from when this instance first saw it stand still.
  private firstSeen?: { position: string; at: number };

  /** `schema`: the event store's (EVENT_STORE_SCHEMA), whose migrations define the horizon. */
  constructor(
    private readonly pool: SqlPool,
    private readonly clock: Clock,
    schema: string,
  ) {
    this.sql = horizonSql(schema);
  }

  async read(): Promise<LogHorizon> {
    const { rows } = await this.pool.query<HorizonRow>(this.sql);
    const row = rows[0]!;
    const firstUnreadablePosition = Number(row.first_unreadable);
    const firstUnassignedPosition = Number(row.first_unassigned);
    if (firstUnreadablePosition >= firstUnassignedPosition) {
      this.firstSeen = undefined;
      return { firstUnreadablePosition, firstUnassignedPosition, holder: null };
    }
    const named = { pid: row.pid, database: row.database };
    if (row.held_seconds !== null) {
      this.firstSeen = undefined;
      return { firstUnreadablePosition, firstUnassignedPosition, holder: { ...named, heldSeconds: Math.max(0, row.held_seconds) } };
    }
    const now = this.clock.now().getTime();
    if (this.firstSeen?.position !== row.first_unreadable) this.firstSeen = { position: row.first_unreadable, at: now };
    return { firstUnreadablePosition, firstUnassignedPosition, holder: { ...named, heldSeconds: (now - this.firstSeen.at) / 1000 } };
  }
}

/** How a holder is named in answers and logs. */
export function describeHorizonHolder(holder: HorizonHolder): string {
  const who =
    holder.pid !== null
      ? `backend pid ${holder.pid}`
      : holder.database !== null
        ? 'a prepared transaction'
        : 'a transaction that ended before it could be named';
  const where = holder.database === null ? '' : ` in database "${holder.database}"`;
  return `${who}${where}, open for ${Math.round(holder.heldSeconds)} s`;
}
