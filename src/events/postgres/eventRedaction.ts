// Rewrites stored events in place (PostgreSQL / PGlite): the one sanctioned exception to an immutable log, for erasure.
import { isConnectionError, sqlState } from '../../database/connectionErrors.js';
import { quoteIdentifier } from '../../database/migrate.js';
import type { SqlClient, SqlPool } from '../../database/sqlPool.js';
import { inTransaction } from '../../database/sqlPool.js';
import type { EventMetadata, JsonObject } from '../eventStore.js';
import { EventStoreUnavailableError } from '../eventStoreErrors.js';

/** An event as stored: the bytes as written, in the schema version they were written in (not upcast). */
export interface StoredEvent {
  position: number;
  streamName: string;
  revision: number;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
  createdAt: Date;
}

/** New data and metadata for the event at `position`; everything else about it (id, type, revision, position, time) stays. */
export interface EventRewrite {
  position: number;
  data: JsonObject;
  metadata: EventMetadata;
}

export interface RewritePlan {
  /** Old stream name → new one, for streams whose name itself must go. */
  renames: ReadonlyMap<string, string>;
  /** Rewrites of events of the streams taken in; an event given unchanged is left alone. */
  events: readonly EventRewrite[];
}

export interface RedactionScope {
  /** Streams the rewrite starts from; those that do not exist are left out. None existing: nothing is done. */
  anchors: readonly string[];
  /** Also take in every stream with an event holding exactly this string anywhere in its data (one scan of the log). */
  mentioning?: string;
  /** Which of the streams found by that scan to take in. */
  acceptMention?(streamName: string): boolean;
  /** Streams that the events read so far point to (children, runtime sessions): taken in too, until none are new. */
  referencedBy(streams: ReadonlyMap<string, readonly StoredEvent[]>): readonly string[];
  /**
   * Values the streams taken in show to be the person's (their chat ids), and the event types of other streams that
   * may hold them: every stream with an event of those types holding one of the values anywhere in its data, and
   * that `accept` takes, is taken in too (one more scan of the log, of those types only; none without values).
   */
  holding?(streams: ReadonlyMap<string, readonly StoredEvent[]>): { values: readonly string[]; types: readonly string[]; accept(streamName: string): boolean };
  /** Decides, from every event of every stream taken in, what to rename and rewrite. Called once, inside the transaction. */
  plan(streams: ReadonlyMap<string, readonly StoredEvent[]>): RewritePlan;
}

/** An event appended in the rewrite's own transaction: it is in the log exactly when the rewrite is. */
export interface JournalEntry {
  streamName: string;
  id: string;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
}

export interface RedactionOutcome {
  /** Whether any anchor existed. */
  found: boolean;
  /** The streams taken in, by their names after the rewrite. */
  streams: string[];
  /** Events read. */
  eventsRead: number;
  /** Events whose data or metadata changed. */
  eventsRewritten: number;
  streamsRenamed: number;
  /** Position of the journal entry, when one was written. */
  journalPosition?: number;
}

export interface EventRow {
  position: string | number;
  stream_name: string;
  revision: string | number;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
  created_at: Date;
}

/**
 * Works on the event store's own tables (event-store migration 1) in one transaction. Taking a stream in means
 * locking its `streams` row first, the lock every append takes: an append to it waits, and lands either before
 * (and is read here) or after the commit. After a rename, an append expecting the old stream's revision finds no
 * stream there and is refused as a wrong revision; the caller's retry then starts a new stream under that name.
 */
export class PostgresEventRedaction {
  private readonly events: string;
  private readonly streams: string;
  private readonly appendFunction: string;

  constructor(
    private readonly pool: SqlPool,
    schema: string,
  ) {
    const quoted = quoteIdentifier(schema);
    this.events = `${quoted}.events`;
    this.streams = `${quoted}.streams`;
    this.appendFunction = `${quoted}.append_events`;
  }

  /**
   * `journal`, given what was found and done, names an event to append in the same transaction (not when no
   * anchor exists): a crash can then never leave the log rewritten without the record that says so. `alongside`, when
   * an anchor exists, does more in the same transaction (on tables of this database): it commits with the rewrite.
   */
  async rewrite(
    scope: RedactionScope,
    journal?: (outcome: RedactionOutcome) => JournalEntry | undefined,
    alongside?: (client: SqlClient) => Promise<void>,
  ): Promise<RedactionOutcome> {
    try {
      return await inTransaction(this.pool, async (client) => {
        const outcome = await this.rewriteIn(client, scope);
        if (!outcome.found) return outcome;
        await alongside?.(client);
        // A journal may decline (undefined): a rewrite that changed nothing has nothing to record.
        const entry = journal?.(outcome);
        if (!entry) return outcome;
        return { ...outcome, journalPosition: await this.append(client, entry) };
      });
    } catch (error) {
      if (isConnectionError(error)) throw new EventStoreUnavailableError('the event store database is unreachable', error);
      const state = sqlState(error);
      if (state === '40P01' || state === '40001') throw new EventStoreUnavailableError(`transient database conflict (${state})`, error);
      throw error;
    }
  }

  private async rewriteIn(client: SqlClient, scope: RedactionScope): Promise<RedactionOutcome> {
    const taken = new Map<string, StoredEvent[]>();
    const anchors = await this.take(client, scope.anchors, taken);
    if (anchors === 0) return { found: false, streams: [], eventsRead: 0, eventsRewritten: 0, streamsRenamed: 0 };
    if (scope.mentioning !== undefined) {
      const mentions = await this.streamsMentioning(client, scope.mentioning);
      await this.take(
        client,
        mentions.filter((name) => scope.acceptMention?.(name) ?? true),
        taken,
      );
    }
    for (;;) {
      const referenced = scope.referencedBy(taken).filter((name) => !taken.has(name));
      if (referenced.length === 0) break;
      await this.take(client, referenced, taken);
      // Referenced streams that do not exist (yet) are remembered as empty, so they are not looked for again.
      for (const name of referenced) if (!taken.has(name)) taken.set(name, []);
    }
    const holding = scope.holding?.(new Map([...taken].filter(([, events]) => events.length > 0)));
    if (holding && holding.values.length > 0 && holding.types.length > 0) {
      const holders = await this.streamsHolding(client, holding.values, holding.types);
      await this.take(client, holders.filter(holding.accept), taken);
    }
    const existing = new Map([...taken].filter(([, events]) => events.length > 0));
    const plan = scope.plan(existing);
    const eventsRewritten = await this.applyRewrites(client, plan.events);
    const streamsRenamed = await this.applyRenames(client, plan.renames);
    return {
      found: true,
      streams: [...existing.keys()].map((name) => plan.renames.get(name) ?? name).sort(),
      eventsRead: [...existing.values()].reduce((sum, events) => sum + events.length, 0),
      eventsRewritten,
      streamsRenamed,
    };
  }

  /** Through the log's own append function (event-store migration 2), so the entry is ordered and locked like any append. */
  private async append(client: SqlClient, entry: JournalEntry): Promise<number> {
    const result = await client.query<{ outcome: string; event_position: string | number }>(
      `SELECT * FROM ${this.appendFunction}($1, 'any', NULL, true, $2::uuid[], $3::text[], $4::jsonb[], $5::jsonb[])`,
      [entry.streamName, [entry.id], [entry.type], [JSON.stringify(entry.data)], [JSON.stringify(entry.metadata)]],
    );
    const row = result.rows[0];
    if (row?.outcome !== 'appended' && row?.outcome !== 'stored') throw new Error(`journal entry not appended to ${entry.streamName}: ${String(row?.outcome)}`);
    return Number(row.event_position);
  }

  /** Locks the named streams that exist (in name order, so two rewrites lock alike) and reads their events. */
  private async take(client: SqlClient, names: readonly string[], taken: Map<string, StoredEvent[]>): Promise<number> {
    const wanted = [...new Set(names)].filter((name) => !taken.has(name));
    if (wanted.length === 0) return 0;
    const locked = await client.query<{ stream_name: string }>(
      `SELECT stream_name FROM ${this.streams} WHERE stream_name = ANY($1::text[]) ORDER BY stream_name FOR UPDATE`,
      [wanted],
    );
    const lockedNames = locked.rows.map((row) => row.stream_name);
    if (lockedNames.length === 0) return 0;
    const rows = await client.query<EventRow>(
      `SELECT position, stream_name, revision, type, data, metadata, created_at FROM ${this.events}
       WHERE stream_name = ANY($1::text[]) ORDER BY stream_name, revision`,
      [lockedNames],
    );
    for (const name of lockedNames) taken.set(name, []);
    for (const row of rows.rows) taken.get(row.stream_name)!.push(toStoredEvent(row));
    return lockedNames.length;
  }

  /** A sequential scan of the whole log: erasure is rare, and no index could find a string anywhere in any event. */
  private async streamsMentioning(client: SqlClient, value: string): Promise<string[]> {
    const result = await client.query<{ stream_name: string }>(
      `SELECT DISTINCT stream_name FROM ${this.events}
       WHERE jsonb_path_exists(data, 'strict $.** ? (@ == $value)', jsonb_build_object('value', $1::text))`,
      [value],
    );
    return result.rows.map((row) => row.stream_name);
  }

  /** Streams with an event of one of `types` holding one of `values` anywhere in its data: the same scan, narrowed by type first. */
  private async streamsHolding(client: SqlClient, values: readonly string[], types: readonly string[]): Promise<string[]> {
    const result = await client.query<{ stream_name: string }>(
      `SELECT DISTINCT stream_name FROM ${this.events}
       WHERE type = ANY($2::text[])
         AND EXISTS (SELECT 1 FROM unnest($1::text[]) AS v(value) WHERE jsonb_path_exists(data, 'strict $.** ? (@ == $value)', jsonb_build_object('value', v.value)))`,
      [[...new Set(values)], [...new Set(types)]],
    );
    return result.rows.map((row) => row.stream_name);
  }

  private async applyRewrites(client: SqlClient, rewrites: readonly EventRewrite[]): Promise<number> {
    if (rewrites.length === 0) return 0;
    // jsonb compares by value, so an event already in its rewritten form (a second pass) is not touched.
    const result = await client.query(
      `UPDATE ${this.events} AS e SET data = r.data, metadata = r.metadata
       FROM unnest($1::bigint[], $2::jsonb[], $3::jsonb[]) AS r(position, data, metadata)
       WHERE e.position = r.position AND (e.data IS DISTINCT FROM r.data OR e.metadata IS DISTINCT FROM r.metadata)`,
      [
        rewrites.map((rewrite) => rewrite.position),
        rewrites.map((rewrite) => JSON.stringify(rewrite.data)),
        rewrites.map((rewrite) => JSON.stringify(rewrite.metadata)),
      ],
    );
    return result.rowCount;
  }

  private async applyRenames(client: SqlClient, renames: ReadonlyMap<string, string>): Promise<number> {
    const pairs = [...renames].filter(([from, to]) => from !== to);
    if (pairs.length === 0) return 0;
    const from = pairs.map(([name]) => name);
    const to = pairs.map(([, name]) => name);
    const clash = await client.query<{ stream_name: string }>(`SELECT stream_name FROM ${this.streams} WHERE stream_name = ANY($1::text[])`, [to]);
    if (clash.rows.length > 0) throw new Error(`cannot rename ${clash.rows.length} stream(s) onto names already in use`);
    await client.query(
      `UPDATE ${this.events} AS e SET stream_name = r.to_name FROM unnest($1::text[], $2::text[]) AS r(from_name, to_name) WHERE e.stream_name = r.from_name`,
      [from, to],
    );
    const renamed = await client.query(
      `UPDATE ${this.streams} AS s SET stream_name = r.to_name FROM unnest($1::text[], $2::text[]) AS r(from_name, to_name) WHERE s.stream_name = r.from_name`,
      [from, to],
    );
    return renamed.rowCount;
  }
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    position: Number(row.position),
    streamName: row.stream_name,
    revision: Number(row.revision),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}
