// Claims of idempotency keys and their recorded answers, shared by every instance on one database.
import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { migrate, quoteIdentifier } from '../database/migrate.js';
import type { SqlClient, SqlPool } from '../database/sqlPool.js';
import { IdempotentWrite } from '../events/idempotentWrite.js';
import { idempotencyMigrations } from './idempotencySchema.js';

/** A recorded answer: the status and the JSON text sent (null for an answer without a body). */
export interface RecordedAnswer {
  status: number;
  body: string | null;
}

/** This request holds the key: it runs, and must complete or release the claim. */
export interface HeldClaim {
  readonly tenant: string;
  readonly key: string;
  readonly nonce: string;
  readonly attempt: number;
  readonly write: IdempotentWrite;
}

/**
 * A first attempt's claim, made with the request's first append instead of before the route runs (see
 * claimWithFirstAppend). `held` once an append made it; until then the request has written nothing.
 */
export interface PendingClaim {
  readonly claim: HeldClaim;
  readonly held: boolean;
}

export type ClaimOutcome =
  | { kind: 'run'; claim: HeldClaim }
  | { kind: 'replay'; answer: RecordedAnswer }
  /** The key was used for another method, path or body. */
  | { kind: 'reused' }
  /** Another request with the key is still running (its instance renews the lease). */
  | { kind: 'in_use' };

export interface IdempotencyStoreOptions {
  /** How long a key's answer is kept and replayed. */
  ttlMs: number;
  /** How long a running request holds its key without renewing it: a retry after its instance died waits this long at most. */
  leaseMs: number;
  /** No other process uses this database (embedded PGlite): claims left running by an earlier process are dead. */
  soleOwner: boolean;
  /**
   * The table is in the event store's database, on the same pool (embedded PGlite; one PostgreSQL with DATABASE_URL
   * unset or equal): a first attempt's claim can be inserted in its first append's statement (claimWithFirstAppend).
   */
  claimsWithAppends?: boolean;
}

interface KeyRow {
  fingerprint: string;
  nonce: string;
  attempts: number;
  status: number | null;
  body: string | null;
  lease_until: Date | null;
  created_at: Date;
}

/**
 * How long a running request holds its key between renewals (every third of it): a retry after its instance
 * died waits this long at most, and a duplicate waits no longer for a request that is still running.
 */
export const IDEMPOTENCY_LEASE_MS = 10_000;

/** Expired keys are deleted at most this often, by the claim that notices. */
const PURGE_INTERVAL_MS = 10 * 60_000;

export class IdempotencyStore {
  private readonly table: string;
  private lastPurge = 0;

  constructor(
    private readonly pool: SqlPool,
    private readonly schema: string,
    private readonly clock: Clock,
    readonly options: IdempotencyStoreOptions,
  ) {
    this.table = `${quoteIdentifier(schema)}.idempotency_keys`;
  }

  async open(): Promise<void> {
    await migrate(this.pool, this.schema, 'idempotency', idempotencyMigrations);
    // The embedded database's previous process is gone (kill -9): its requests' retries need not wait out a lease.
    if (this.options.soleOwner) await this.pool.query(`UPDATE ${this.table} SET lease_until = NULL WHERE status IS NULL`);
  }

  /** One look at the key: claim it (first use, an expired answer, or a dead or failed attempt), or say why not. */
  async claim(tenant: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
    const now = this.clock.now();
    this.purgeNowAndThen(now);
    const nonce = randomUUID();
    const inserted = await this.pool.query<{ nonce: string }>(
      `INSERT INTO ${this.table} AS k (tenant, idempotency_key, fingerprint, nonce, attempts, lease_until, created_at)
       VALUES ($1, $2, $3, $4, 1, $5, $6)
       ON CONFLICT (tenant, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint, nonce = excluded.nonce, attempts = 1,
         status = NULL, body = NULL, lease_until = excluded.lease_until, created_at = excluded.created_at, completed_at = NULL
       WHERE k.created_at <= $7
       RETURNING k.nonce`,
      [tenant, key, fingerprint, nonce, this.leaseFrom(now), now, new Date(now.getTime() - this.options.ttlMs)],
    );
    if (inserted.rows.length > 0) return { kind: 'run', claim: this.held(tenant, key, nonce, 1, false, now) };

    const { rows } = await this.pool.query<KeyRow>(
      `SELECT fingerprint, nonce, attempts, status, body, lease_until, created_at FROM ${this.table} WHERE tenant = $1 AND idempotency_key = $2`,
      [tenant, key],
    );
    const row = rows[0];
    if (!row) return this.claim(tenant, key, fingerprint);
    if (row.fingerprint !== fingerprint) return { kind: 'reused' };
    if (row.status !== null) return { kind: 'replay', answer: { status: Number(row.status), body: row.body } };
    if (row.lease_until !== null && new Date(row.lease_until).getTime() > now.getTime()) return { kind: 'in_use' };
    // The attempt holding it died or failed: take over, knowing that it may have written part of the request.
    const attempt = Number(row.attempts) + 1;
    const taken = await this.pool.query(
      `UPDATE ${this.table} SET attempts = $3, lease_until = $4
       WHERE tenant = $1 AND idempotency_key = $2 AND status IS NULL AND attempts = $5 AND (lease_until IS NULL OR lease_until <= $6)`,
      [tenant, key, attempt, this.leaseFrom(now), attempt - 1, now],
    );
    if (taken.rowCount === 1) return { kind: 'run', claim: this.held(tenant, key, row.nonce, attempt, true, new Date(row.created_at)) };
    return { kind: 'in_use' };
  }

  /**
   * A first attempt's claim, to be made with its first append, in the same statement (the event store's AppendClaim;
   * only where `claimsWithAppends`): a new row, or nothing, in which case nothing is appended either (the key is
   * taken: go back to `claim`). Until then the request only reads. Nothing is sent to the database here but the
   * occasional purge of expired keys.
   *
   * The lease is set when the append's statement is built, before it waits for a connection or a stream's lock: a
   * statement that waited a good part of the lease commits the claim with little of it left, so the claim is renewed
   * at once when it is made (a duplicate waiting on the key could otherwise find the lease run out and take over).
   */
  claimWithFirstAppend(tenant: string, key: string, fingerprint: string): PendingClaim {
    const now = this.clock.now();
    this.purgeNowAndThen(now);
    const nonce = randomUUID();
    const claim = this.held(tenant, key, nonce, 1, false, now);
    const pending = { claim, held: false };
    const table = this.table;
    let leaseSetAt = now.getTime();
    const leaseFrom = () => {
      const at = this.clock.now();
      leaseSetAt = at.getTime();
      return this.leaseFrom(at);
    };
    claim.write.pendingClaim = {
      insertSql: (first) =>
        `INSERT INTO ${table} (tenant, idempotency_key, fingerprint, nonce, attempts, lease_until, created_at)
         VALUES ($${first}, $${first + 1}, $${first + 2}, $${first + 3}::uuid, 1, $${first + 4}::timestamptz, $${first + 5}::timestamptz)
         ON CONFLICT (tenant, idempotency_key) DO NOTHING RETURNING true AS claimed`,
      // The lease runs from the append, not from the request's start.
      get parameters() {
        return [tenant, key, fingerprint, nonce, leaseFrom(), now];
      },
      claimed: () => {
        pending.held = true;
        claim.write.pendingClaim = undefined;
        if (this.clock.now().getTime() - leaseSetAt > this.options.leaseMs / 3) void this.renew(claim).catch(() => undefined);
      },
    };
    return pending;
  }

  /**
   * The answer of a first attempt that appended nothing (a refusal, a decision that wrote nothing), recorded as a claim
   * and its answer at once. False when the key was taken meanwhile (a duplicate claimed it): nothing recorded, and the
   * request goes back to `claim`, having written nothing.
   */
  async recordAnswer(pending: PendingClaim, fingerprint: string, answer: RecordedAnswer): Promise<boolean> {
    const { claim } = pending;
    const now = this.clock.now();
    const inserted = await this.pool.query(
      `INSERT INTO ${this.table} (tenant, idempotency_key, fingerprint, nonce, attempts, status, body, created_at, completed_at)
       VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $8)
       ON CONFLICT (tenant, idempotency_key) DO NOTHING`,
      [claim.tenant, claim.key, fingerprint, claim.nonce, answer.status, answer.body, claim.write.firstClaimedAt, now],
    );
    return inserted.rowCount === 1;
  }

  /**
   * Records the answer of a claim this request held. Returns undefined when recorded, or the answer recorded
   * already by another attempt that took the claim over (its lease ran out): that one is the answer to give.
   */
  async complete(claim: HeldClaim, answer: RecordedAnswer): Promise<RecordedAnswer | undefined> {
    const updated = await this.pool.query(
      `UPDATE ${this.table} SET status = $4, body = $5, lease_until = NULL, completed_at = $6
       WHERE tenant = $1 AND idempotency_key = $2 AND nonce = $3 AND status IS NULL`,
      [claim.tenant, claim.key, claim.nonce, answer.status, answer.body, this.clock.now()],
    );
    if (updated.rowCount === 1) return undefined;
    const { rows } = await this.pool.query<KeyRow>(`SELECT status, body, nonce FROM ${this.table} WHERE tenant = $1 AND idempotency_key = $2`, [
      claim.tenant,
      claim.key,
    ]);
    const row = rows[0];
    return row && row.nonce === claim.nonce && row.status !== null ? { status: Number(row.status), body: row.body } : undefined;
  }

  /**
   * A failure worth retrying (5xx): the next attempt may run at once, and looks for what this one wrote. Only this
   * claim's row (its nonce): a first attempt that never made its claim releases nothing of another request's.
   */
  async release(claim: HeldClaim): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.table} SET lease_until = NULL WHERE tenant = $1 AND idempotency_key = $2 AND nonce = $3 AND attempts = $4 AND status IS NULL`,
      [claim.tenant, claim.key, claim.nonce, claim.attempt],
    );
  }

  /** Keeps a long request's claim alive (only this claim's: a key another request holds is left alone). */
  async renew(claim: HeldClaim): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.table} SET lease_until = $5 WHERE tenant = $1 AND idempotency_key = $2 AND nonce = $3 AND attempts = $4 AND status IS NULL`,
      [claim.tenant, claim.key, claim.nonce, claim.attempt, this.leaseFrom(this.clock.now())],
    );
  }

  /**
   * Erasure: deletes the tenant's keys, answered or still running, that belong to a person's requests: those whose
   * events carry one of `keyTags` (keyTag of the tenant and key, in the events' metadata), and those whose recorded
   * answer holds one of `values` as a JSON string. A retry of a deleted key runs as a new request. `client` is a
   * transaction on this table's database, to delete with the erasure's rewrite. Answers how many were deleted.
   */
  async forgetErased(
    tenant: string,
    { keyTags, values }: { keyTags: readonly string[]; values: readonly string[] },
    client: SqlClient = this.pool,
  ): Promise<number> {
    if (keyTags.length === 0 && values.length === 0) return 0;
    // The tag is keyTag() in SQL: the first 32 hex digits of sha256(tenant, a zero byte, key). A value is looked for
    // as the JSON string the answer was written with, so an id is not found inside a longer one.
    const deleted = await client.query(
      `DELETE FROM ${this.table}
       WHERE tenant = $1
         AND (left(encode(sha256(convert_to(tenant, 'UTF8') || '\\x00'::bytea || convert_to(idempotency_key, 'UTF8')), 'hex'), 32) = ANY($2::text[])
           OR EXISTS (SELECT 1 FROM unnest($3::text[]) AS v(token) WHERE strpos(body, v.token) > 0))`,
      [tenant, [...new Set(keyTags)], [...new Set(values)].map((value) => JSON.stringify(value))],
    );
    return deleted.rowCount;
  }

  private held(tenant: string, key: string, nonce: string, attempt: number, recovering: boolean, claimedAt: Date): HeldClaim {
    return { tenant, key, nonce, attempt, write: new IdempotentWrite(nonce, keyTag(tenant, key), recovering, claimedAt) };
  }

  private leaseFrom(now: Date): Date {
    return new Date(now.getTime() + this.options.leaseMs);
  }

  private purgeNowAndThen(now: Date): void {
    if (now.getTime() - this.lastPurge < PURGE_INTERVAL_MS) return;
    this.lastPurge = now.getTime();
    // Only answered keys: a running one past the TTL is a request still in flight somewhere.
    void this.pool
      .query(`DELETE FROM ${this.table} WHERE created_at <= $1 AND status IS NOT NULL`, [new Date(now.getTime() - this.options.ttlMs)])
      .catch(() => undefined);
  }
}

/** What the events a keyed request writes record in their metadata: the key, hashed with its tenant. */
export function keyTag(tenant: string, key: string): string {
  return createHash('sha256').update(`${tenant}\u0000${key}`).digest('hex').slice(0, 32);
}
