// EventStore on PostgreSQL or embedded PGlite: per-stream row locks, positions that never go backwards for readers.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { isConnectionError, sqlState } from '../../database/connectionErrors.js';
import { migrate, quoteIdentifier } from '../../database/migrate.js';
import type { SqlPool } from '../../database/sqlPool.js';
import { ValidationError } from '../../errors/ledgerError.js';
import type {
  AppendClaim,
  AppendNotice,
  AppendResult,
  EventHandler,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamTail,
  SubscribeOptions,
  Subscription,
} from '../eventStore.js';
import {
  AppendClaimTakenError,
  DuplicateEventIdError,
  EventStoreUnavailableError,
  StreamNotFoundError,
  WrongExpectedRevisionError,
} from '../eventStoreErrors.js';
import { eventStoreMigrations, MAX_EVENTS_PER_APPEND } from './eventStoreSchema.js';

export interface PostgresEventStoreOptions {
  schema: string;
  /** For LISTEN/NOTIFY across instances; omitted on PGlite, where only in-process wake-ups exist. */
  listenConnectionString?: string;
  /** How often an idle subscription looks for events nobody notified it of. */
  pollIntervalMs?: number;
}

interface EventRow {
  position: string | number;
  stream_name: string;
  revision: string | number;
  event_id: string;
  type: string;
  data: RecordedEvent['data'];
  metadata: RecordedEvent['metadata'];
  created_at: Date;
}

/** A row of `append_events` (event-store migration 2). */
interface AppendRow {
  outcome: 'appended' | 'stored' | 'wrong_revision';
  event_id: string;
  stream_name: string;
  revision: string;
  event_position: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NOTIFY_CHANNEL = 'session_ledger_events';

export class PostgresEventStore implements EventStore {
  readonly backend: 'postgres' | 'pglite';
  readonly appendsToStreamsAtomically = true;
  private readonly table: string;
  private readonly streamsTable: string;
  private readonly appendFunction: string;
  private readonly appendToStreamsFunction: string;
  private readonly firstUnreadable: string;
  private readonly readable: string;
  private readonly wakeups = new EventEmitter();
  private listener?: pg.Client;
  private listenerStarting?: Promise<void>;
  private notifying = false;
  private notifyAgain = false;
  private closed = false;

  private constructor(
    private readonly pool: SqlPool,
    private readonly options: PostgresEventStoreOptions,
  ) {
    this.backend = pool.kind;
    const schema = quoteIdentifier(options.schema);
    this.table = `${schema}.events`;
    this.streamsTable = `${schema}.streams`;
    this.appendFunction = `${schema}.append_events`;
    this.appendToStreamsFunction = `${schema}.append_to_streams`;
    // Below the snapshot's xmin every transaction has ended: the horizon (event-store migration 6, which reads
    // pg_stat_activity) is computed only when a row reaches past it, once per statement (an initplan runs lazily).
    this.firstUnreadable = `(SELECT ${schema}.first_unreadable_position())`;
    this.readable = `CASE WHEN position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16) THEN true ELSE position < ${this.firstUnreadable} END`;
    this.wakeups.setMaxListeners(0);
  }

  static async open(pool: SqlPool, options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    await migrate(pool, options.schema, 'event-store', eventStoreMigrations);
    return new PostgresEventStore(pool, options);
  }

  async append(streamName: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    validateAppend(streamName, events, expectedRevision);
    // Ids we generate here are fresh: only ids the caller chose can make this a retry worth looking up.
    const callerChoseIds = events.some((event) => event.id !== undefined);
    const ids = events.map((event) => event.id ?? randomUUID());
    const rows = await this.guard(async () => {
      const result = await this.pool.query<AppendRow>(
        `SELECT * FROM ${this.appendFunction}($1, $2, $3, $4, $5::uuid[], $6::text[], $7::jsonb[], $8::jsonb[])`,
        [
          streamName,
          typeof expectedRevision === 'number' ? 'exact' : expectedRevision,
          typeof expectedRevision === 'number' ? expectedRevision : null,
          callerChoseIds,
          ids,
          events.map((event) => event.type),
          events.map((event) => JSON.stringify(event.data)),
          events.map((event) => JSON.stringify(event.metadata ?? {})),
        ],
      );
      return result.rows;
    });
    const outcome = rows[0]?.outcome;
    if (outcome === 'stored') return this.idempotentResult(streamName, ids, rows);
    if (outcome === 'wrong_revision') throw new WrongExpectedRevisionError(streamName, expectedRevision, Number(rows[0]!.revision));
    if (outcome !== 'appended') throw new Error(`unexpected append outcome ${String(outcome)} for ${streamName}`);
    const appended = { nextExpectedRevision: Number(rows[0]!.revision), position: Number(rows[0]!.event_position) };
    this.wakeups.emit('append', { streamName, revision: appended.nextExpectedRevision } satisfies AppendNotice);
    this.notifyOtherInstances();
    return appended;
  }

  async appendToStreams(appends: readonly StreamAppend[], claim?: AppendClaim): Promise<AppendResult[]> {
    validateStreamAppends(appends);
    const callerChoseIds = appends.some((part) => part.events.some((event) => event.id !== undefined));
    const ids = appends.map((part) => part.events.map((event) => event.id ?? randomUUID()));
    const events = appends.flatMap((part) => part.events);
    const functionCall = (streamNames: string) =>
      `${this.appendToStreamsFunction}(${streamNames}, $2::text[], $3::bigint[], $4::int[], $5, $6::uuid[], $7::text[], $8::jsonb[], $9::jsonb[])`;
    // With a claim, its insert runs first in the same statement, and the append once for each row it returns: the
    // stream names are passed through that row (claim.claimed is always true, and a CASE on a column is never folded
    // away), so the call depends on it and with the key taken (no row) the function is not called at all. A
    // concurrent insert of the same key waits for this transaction to end, then finds the key taken.
    const text = claim
      ? `WITH claim AS (${claim.insertSql(10)}) SELECT a.* FROM claim CROSS JOIN LATERAL ${functionCall('CASE WHEN claim.claimed THEN $1::text[] END')} AS a`
      : `SELECT * FROM ${functionCall('$1::text[]')}`;
    const call = () =>
      this.guard(async () => {
        const result = await this.pool.query<AppendRow>(text, [
          appends.map((part) => part.streamName),
          appends.map((part) => (typeof part.expectedRevision === 'number' ? 'exact' : part.expectedRevision)),
          appends.map((part) => (typeof part.expectedRevision === 'number' ? part.expectedRevision : null)),
          appends.map((part) => part.events.length),
          callerChoseIds,
          ids.flat(),
          events.map((event) => event.type),
          events.map((event) => JSON.stringify(event.data)),
          events.map((event) => JSON.stringify(event.metadata ?? {})),
          ...(claim?.parameters ?? []),
        ]);
        // The function answers at least one row whenever it runs: none is the claim's key taken, nothing written.
        if (claim && result.rows.length === 0) throw new AppendClaimTakenError();
        claim?.claimed();
        return result.rows;
      });
    let rows: AppendRow[];
    try {
      rows = await call();
    } catch (error) {
      if (sqlState(error) !== 'SL409' || !callerChoseIds) throw createdMeanwhile(error, appends);
      // With ids the caller chose, the append that created the stream may have been this very write (a retry that
      // ran beside its first attempt): look once more, now that its events are visible, so the retry is answered
      // as stored whichever attempt committed.
      rows = await call().catch((again: unknown) => {
        throw createdMeanwhile(again, appends);
      });
    }
    const outcome = rows[0]?.outcome;
    if (outcome === 'stored') return this.idempotentResults(appends, ids, rows);
    if (outcome === 'wrong_revision') {
      const refused = appends.find((part) => part.streamName === rows[0]!.stream_name)!;
      throw new WrongExpectedRevisionError(refused.streamName, refused.expectedRevision, Number(rows[0]!.revision));
    }
    if (outcome !== 'appended' || rows.length !== appends.length) throw new Error(`unexpected append outcome ${String(outcome)} for ${appends.length} streams`);
    const results = rows.map((row) => ({ nextExpectedRevision: Number(row.revision), position: Number(row.event_position) }));
    results.forEach((result, index) => {
      if (appends[index]!.events.length > 0)
        this.wakeups.emit('append', { streamName: appends[index]!.streamName, revision: result.nextExpectedRevision } satisfies AppendNotice);
    });
    this.notifyOtherInstances();
    return results;
  }

  /** A retry of an append to several streams is answered only when every one of its events is stored as it was sent. */
  private idempotentResults(appends: readonly StreamAppend[], ids: string[][], rows: AppendRow[]): AppendResult[] {
    const results: AppendResult[] = [];
    let offset = 0;
    for (const [index, part] of appends.entries()) {
      if (part.events.length === 0) {
        // A condition of the earlier attempt: it held then, and nothing of it was written.
        results.push({ nextExpectedRevision: typeof part.expectedRevision === 'number' ? part.expectedRevision : -1, position: 0, alreadyStored: true });
        continue;
      }
      const own = rows.slice(offset, offset + part.events.length);
      offset += part.events.length;
      results.push(this.idempotentResult(part.streamName, ids[index]!, own));
    }
    if (offset !== rows.length)
      throw new DuplicateEventIdError(
        appends.map((part) => part.streamName).join(', '),
        rows.map((row) => row.event_id),
      );
    return results;
  }

  /**
   * NOTIFY inside the append's transaction would hold a cluster-wide lock until the commit is flushed,
   * serialising concurrent appends (measured: 16 writers fell to a third). So it is sent after the commit,
   * at most one in flight per process: subscribers poll as well, a coalesced wake-up is enough.
   */
  private notifyOtherInstances(): void {
    if (this.pool.kind !== 'postgres') return;
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = true;
    void this.pool
      .query(`SELECT pg_notify($1, '')`, [NOTIFY_CHANNEL])
      .catch(() => undefined)
      .finally(() => {
        this.notifying = false;
        if (this.notifyAgain) {
          this.notifyAgain = false;
          this.notifyOtherInstances();
        }
      });
  }

  private idempotentResult(streamName: string, ids: string[], rows: AppendRow[]): AppendResult {
    const sameAppend =
      rows.length === ids.length &&
      rows.every((row, index) => row.stream_name === streamName && row.event_id.toLowerCase() === ids[index]!.toLowerCase()) &&
      rows.every((row, index) => index === 0 || Number(row.revision) === Number(rows[index - 1]!.revision) + 1);
    if (!sameAppend)
      throw new DuplicateEventIdError(
        streamName,
        rows.map((row) => row.event_id),
      );
    const last = rows[rows.length - 1]!;
    return { nextExpectedRevision: Number(last.revision), position: Number(last.event_position), alreadyStored: true };
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const to = options.toRevision ?? (backwards ? 0 : Number.MAX_SAFE_INTEGER);
    const [low, high] = backwards ? [to, from] : [from, to];
    const limit = options.maxCount ?? null;
    return this.guard(async () => {
      // One round trip whether or not there are events: the stream's row comes with them (a row of nulls when
      // the range is empty), and no row at all means no stream. A cache hit's catch-up read is usually empty.
      const result = await this.pool.query<Partial<EventRow>>(
        `SELECT e.position, e.stream_name, e.revision, e.event_id, e.type, e.data, e.metadata, e.created_at
         FROM ${this.streamsTable} AS s
         LEFT JOIN LATERAL (
           SELECT position, stream_name, revision, event_id, type, data, metadata, created_at FROM ${this.table}
           WHERE stream_name = s.stream_name AND revision BETWEEN $2 AND $3
           ORDER BY revision ${backwards ? 'DESC' : 'ASC'} LIMIT $4
         ) AS e ON true
         WHERE s.stream_name = $1
         ORDER BY e.revision ${backwards ? 'DESC' : 'ASC'}`,
        [streamName, low, high, limit],
      );
      if (result.rows.length === 0) throw new StreamNotFoundError(streamName);
      if (result.rows[0]!.position === null) return [];
      return (result.rows as EventRow[]).map(toRecordedEvent);
    });
  }

  async readStreamTails(tails: readonly StreamTail[]): Promise<Array<RecordedEvent[] | null>> {
    return this.guard(async () => {
      // One snapshot for all of them; as in readStream, a stream with nothing new comes as one row of nulls.
      const result = await this.pool.query<Partial<EventRow> & { tail: number }>(
        `SELECT t.tail::int AS tail, e.position, e.stream_name, e.revision, e.event_id, e.type, e.data, e.metadata, e.created_at
         FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS t(stream_name, from_revision, tail)
         JOIN ${this.streamsTable} AS s ON s.stream_name = t.stream_name
         LEFT JOIN LATERAL (
           SELECT position, stream_name, revision, event_id, type, data, metadata, created_at FROM ${this.table}
           WHERE stream_name = s.stream_name AND revision >= t.from_revision
           ORDER BY revision
         ) AS e ON true
         ORDER BY t.tail, e.revision`,
        [tails.map((tail) => tail.streamName), tails.map((tail) => tail.fromRevision)],
      );
      const read: Array<RecordedEvent[] | null> = tails.map(() => null);
      for (const row of result.rows) {
        const events = (read[row.tail - 1] ??= []);
        if (row.position !== null) events.push(toRecordedEvent(row as EventRow));
      }
      return read;
    });
  }

  async findEvent(streamName: string, eventId: string): Promise<RecordedEvent | undefined> {
    if (!UUID.test(eventId)) return undefined;
    return this.guard(async () => {
      // The unique index on event_id finds it whatever the stream's length.
      const result = await this.pool.query<EventRow>(
        `SELECT position, stream_name, revision, event_id, type, data, metadata, created_at FROM ${this.table} WHERE event_id = $1 AND stream_name = $2`,
        [eventId, streamName],
      );
      const row = result.rows[0];
      return row && toRecordedEvent(row);
    });
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    // Below the horizon no transaction that can still append to this log is running, so a reader that stops
    // there never skips an event whose position was handed out before a later one committed.
    return this.guard(async () => {
      const result = await this.pool.query<EventRow>(
        // The page is taken first, then cut at the horizon: with the horizon in the same WHERE the planner
        // cannot use the bound and re-reads the whole tail on every page (measured: 100× the buffers).
        `SELECT * FROM (
           SELECT position, stream_name, revision, event_id, type, data, metadata, created_at FROM ${this.table}
           WHERE position > $1 ORDER BY position LIMIT $2
         ) AS page
         WHERE ${this.readable}
         ORDER BY position`,
        [options.fromPosition ?? 0, options.maxCount ?? null],
      );
      return result.rows.map(toRecordedEvent);
    });
  }

  async headPosition(): Promise<number> {
    return this.guard(async () => {
      const result = await this.pool.query<{ head: string | null }>(`SELECT max(position) AS head FROM ${this.table} WHERE position < ${this.firstUnreadable}`);
      return Number(result.rows[0]?.head ?? 0);
    });
  }

  async lastCommittedPosition(): Promise<number> {
    return this.guard(async () => {
      // Rows of transactions still in flight are invisible here; every committed one is not.
      const result = await this.pool.query<{ last: string | null }>(`SELECT max(position) AS last FROM ${this.table}`);
      return Number(result.rows[0]?.last ?? 0);
    });
  }

  subscribe(handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    const batchSize = options.batchSize ?? 500;
    const pollIntervalMs = this.options.pollIntervalMs ?? 250;
    let position = options.fromPosition ?? 0;
    let stopped = false;
    let wake: (() => void) | undefined;
    const onAppend = () => wake?.();
    this.wakeups.on('append', onAppend);
    void this.startListener();

    const loop = async () => {
      try {
        while (!stopped) {
          const batch = await this.readAll({ fromPosition: position, maxCount: batchSize });
          for (const event of batch) {
            if (stopped) return;
            await handler(event);
            position = event.position;
          }
          if (batch.length === batchSize || stopped) continue;
          // A listener connection lost with the database comes back here, not only on the next subscribe.
          void this.startListener();
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollIntervalMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
      } finally {
        this.wakeups.off('append', onAppend);
      }
    };
    const done = loop();
    return {
      done: done.catch(() => undefined),
      stop: async () => {
        stopped = true;
        wake?.();
        await done.catch(() => undefined);
      },
    };
  }

  async countAfter(position: number, cap: number): Promise<number> {
    return this.guard(async () => {
      const result = await this.pool.query<{ count: string | number }>(
        `SELECT count(*) AS count FROM (SELECT position FROM ${this.table} WHERE position > $1 ORDER BY position LIMIT $2) AS pending
         WHERE ${this.readable}`,
        [position, cap],
      );
      return Number(result.rows[0]?.count ?? 0);
    });
  }

  onAppended(listener: (appended?: AppendNotice) => void): () => void {
    this.wakeups.on('append', listener);
    void this.startListener();
    return () => this.wakeups.off('append', listener);
  }

  /** Other instances' appends arrive as NOTIFY; a lost listener only slows delivery to the poll interval. */
  private startListener(): Promise<void> {
    if (!this.options.listenConnectionString || this.listener || this.closed) return Promise.resolve();
    this.listenerStarting ??= (async () => {
      const client = new pg.Client({ connectionString: this.options.listenConnectionString });
      client.on('error', () => {
        this.listener = undefined;
        this.listenerStarting = undefined;
      });
      client.on('notification', () => this.wakeups.emit('append'));
      try {
        await client.connect();
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
        this.listener = client;
      } catch {
        this.listenerStarting = undefined;
        await client.end().catch(() => undefined);
      }
    })();
    return this.listenerStarting;
  }

  async ping(): Promise<void> {
    await this.guard(() => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listenerStarting;
    await this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isConnectionError(error)) throw new EventStoreUnavailableError('the event store database is unreachable', error);
      // 40P01 deadlock and 40001 serialization failures are transient: report them as such.
      const state = sqlState(error);
      if (state === '40P01' || state === '40001') throw new EventStoreUnavailableError(`transient database conflict (${state})`, error);
      throw error;
    }
  }
}

/** `condition`: a part of an append to several streams that may carry no events (see StreamAppend). */
function validateAppend(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision, condition = false): void {
  if (streamName.length === 0 || streamName.length > 1024)
    throw new ValidationError('stream name must be 1 to 1024 characters', { streamName }, 'INVALID_STREAM_NAME');
  if (events.length === 0 && !condition) throw new ValidationError('an append needs at least one event', undefined, 'EMPTY_APPEND');
  if (events.length > MAX_EVENTS_PER_APPEND)
    throw new ValidationError(`an append holds at most ${MAX_EVENTS_PER_APPEND} events`, undefined, 'APPEND_TOO_LARGE');
  if (typeof expected === 'number' && (!Number.isSafeInteger(expected) || expected < -1)) {
    throw new ValidationError('expected revision must be a whole number ≥ -1', { expected }, 'INVALID_EXPECTED_REVISION');
  }
  const ids = new Set<string>();
  for (const event of events) {
    if (event.id !== undefined) {
      if (!UUID.test(event.id)) throw new ValidationError('event ids are UUIDs', { id: event.id }, 'INVALID_EVENT_ID');
      if (ids.has(event.id.toLowerCase())) throw new ValidationError('an event id appears twice in one append', { id: event.id }, 'INVALID_EVENT_ID');
      ids.add(event.id.toLowerCase());
    }
    if (!event.type || event.type.length > 256) throw new ValidationError('event type must be 1 to 256 characters', undefined, 'INVALID_EVENT_TYPE');
  }
}

function validateStreamAppends(appends: readonly StreamAppend[]): void {
  if (appends.length === 0) throw new ValidationError('an append needs at least one stream', undefined, 'EMPTY_APPEND');
  const names = new Set<string>();
  const ids = new Set<string>();
  let events = 0;
  for (const part of appends) {
    validateAppend(part.streamName, part.events, part.expectedRevision, true);
    if (names.has(part.streamName)) throw new ValidationError('a stream appears twice in one append', { streamName: part.streamName }, 'INVALID_STREAM_NAME');
    names.add(part.streamName);
    for (const event of part.events) {
      if (event.id === undefined) continue;
      if (ids.has(event.id.toLowerCase())) throw new ValidationError('an event id appears twice in one append', { id: event.id }, 'INVALID_EVENT_ID');
      ids.add(event.id.toLowerCase());
    }
    events += part.events.length;
  }
  if (events === 0) throw new ValidationError('an append needs at least one event', undefined, 'EMPTY_APPEND');
  if (events > MAX_EVENTS_PER_APPEND) throw new ValidationError(`an append holds at most ${MAX_EVENTS_PER_APPEND} events`, undefined, 'APPEND_TOO_LARGE');
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamName: row.stream_name,
    revision: Number(row.revision),
    position: Number(row.position),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}

/** SL409: a stream another append created after this one looked (the call wrote nothing), as the refusal it is. */
function createdMeanwhile(error: unknown, appends: readonly StreamAppend[]): unknown {
  if (sqlState(error) !== 'SL409') return error;
  const created = JSON.parse((error as { detail: string }).detail) as { streamName: string; revision: number };
  const refused = appends.find((part) => part.streamName === created.streamName)!;
  return new WrongExpectedRevisionError(created.streamName, refused.expectedRevision, Number(created.revision));
}
