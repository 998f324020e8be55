// The event log's tables. A position is (transaction id << 16) + index in the append: see docs/ARCHITECTURE.md.
import type { Migration } from '../../database/migrate.js';

export const eventStoreMigrations: readonly Migration[] = [
  {
    id: 1,
    name: 'events and streams',
    sql: `
      CREATE TABLE {schema}.streams (
        stream_name text PRIMARY KEY,
        revision bigint NOT NULL
      );
      CREATE TABLE {schema}.events (
        position bigint PRIMARY KEY,
        stream_name text NOT NULL,
        revision bigint NOT NULL,
        event_id uuid NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT events_stream_revision UNIQUE (stream_name, revision),
        CONSTRAINT events_event_id UNIQUE (event_id)
      );
    `,
  },
  {
    id: 2,
    name: 'append in one statement',
    // The whole append in one server-side call: one round trip instead of five (BEGIN, lock, id lookup,
    // insert, COMMIT), which is what held single-event appends to a third of a bare INSERT (docs/benchmarks.md).
    // Outcomes: 'appended' (revision: the stream's new revision, position: the last event's), 'stored' (one row
    // per event id already in the log, for the caller to tell a retry from a clash), 'wrong_revision'
    // (revision: the stream's actual one, -1 without a stream). A refused append writes nothing.
    sql: `
      CREATE FUNCTION {schema}.append_events(
        p_stream text, p_expected_kind text, p_expected bigint, p_check_ids boolean,
        p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
      ) RETURNS TABLE (outcome text, event_id uuid, stream_name text, revision bigint, event_position bigint)
      LANGUAGE plpgsql AS $append$
      #variable_conflict use_column
      DECLARE
        v_count int := cardinality(p_ids);
        v_current bigint;
        v_exists boolean;
        v_matches boolean;
      BEGIN
        LOOP
          -- The stream row's lock serialises appends to one stream and no others.
          SELECT s.revision INTO v_current FROM {schema}.streams AS s WHERE s.stream_name = p_stream FOR UPDATE;
          v_exists := FOUND;
          IF NOT v_exists THEN v_current := -1; END IF;
          IF p_check_ids AND v_count = 1 THEN
            -- One id: an equality on the unique index, which every plan of it uses.
            RETURN QUERY SELECT 'stored'::text, e.event_id, e.stream_name, e.revision, e.position
              FROM {schema}.events AS e WHERE e.event_id = p_ids[1];
            IF FOUND THEN RETURN; END IF;
          ELSIF p_check_ids THEN
            -- Several: planned afresh each time (EXECUTE), because a cached plan of = ANY made while the table
            -- was small keeps scanning all of it once it is large (measured: 70 ms per append at 200,000 events).
            RETURN QUERY EXECUTE 'SELECT ''stored''::text, e.event_id, e.stream_name, e.revision, e.position
              FROM {schema}.events AS e WHERE e.event_id = ANY ($1) ORDER BY e.position' USING p_ids;
            IF FOUND THEN RETURN; END IF;
          END IF;
          v_matches := CASE p_expected_kind
            WHEN 'any' THEN true
            WHEN 'no_stream' THEN v_current = -1
            WHEN 'stream_exists' THEN v_current >= 0
            ELSE v_current = p_expected
          END;
          IF NOT v_matches THEN
            RETURN QUERY SELECT 'wrong_revision'::text, NULL::uuid, p_stream, v_current, NULL::bigint;
            RETURN;
          END IF;
          IF v_exists THEN
            UPDATE {schema}.streams AS s SET revision = v_current + v_count WHERE s.stream_name = p_stream;
            EXIT;
          END IF;
          -- A concurrent creator makes this insert wait for its commit; then the row is there to lock.
          INSERT INTO {schema}.streams AS s (stream_name, revision) VALUES (p_stream, v_count - 1) ON CONFLICT DO NOTHING;
          EXIT WHEN FOUND;
        END LOOP;
        RETURN QUERY
          WITH inserted AS (
            INSERT INTO {schema}.events (position, stream_name, revision, event_id, type, data, metadata)
            SELECT (pg_current_xact_id()::text::bigint << 16) + n.ord, p_stream, v_current + n.ord, n.id, n.type, n.data, n.metadata
            FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS n(id, type, data, metadata, ord)
            RETURNING position
          )
          SELECT 'appended'::text, NULL::uuid, p_stream, v_current + v_count, max(i.position) FROM inserted AS i;
      END;
      $append$;
    `,
  },
  {
    id: 3,
    name: 'append to several streams in one statement',
    // Several streams' appends in one transaction, each at its own expected revision: a decision and the streams it
    // opens (a conversation's binding and its new session) commit together, in one round trip. Positions number the
    // events of the whole call in the order given. Outcomes as in append_events, with one 'appended' row per stream
    // (in the order given) and 'wrong_revision' naming the first stream refused. Existing streams are locked in name
    // order, so two such calls never wait on each other in a circle; every check runs before anything is written, and
    // a stream another append creates meanwhile raises SL409 (detail: its name and revision), which undoes the call.
    sql: appendToStreamsFunction('CREATE FUNCTION', 'none'),
  },
  {
    id: 4,
    name: 'conditions in an append to several streams',
    // A part with no events is a condition: the call appends only while that stream stands at its expected revision.
    // It is read without a lock (a stream moved by a transaction still open counts as not yet moved, as a read before
    // the append would) and neither written nor answered with a position ('appended' with its revision and no
    // position). Another decision's stream read from a cache is proven current this way, with no read of its own.
    sql: appendToStreamsFunction('CREATE OR REPLACE FUNCTION', 'read'),
  },
  {
    id: 5,
    name: 'conditions hold their streams',
    // A condition read without a lock let two decisions each resting on the other's stream both commit (a resolve
    // expiring a session on its stream's revision, a turn starting on its conversation's): each saw the other's
    // stream before the other's commit. A condition now takes a share lock, in the same name order as the appends'
    // update locks: it waits for an append to its stream still open and then reads the revision it committed, and an
    // append to it waits for the condition's transaction. Appends that share no stream still never wait on each other.
    sql: appendToStreamsFunction('CREATE OR REPLACE FUNCTION', 'share'),
  },
  {
    id: 6,
    name: 'read horizon of this database',
    // Readers stop below the first position a transaction still running could fill in (docs/ARCHITECTURE.md). The
    // server-wide snapshot xmin made a transaction in any other database of the server (a pg_dump of a neighbour)
    // hold them. A transaction runs in one database for its whole life and cannot insert here from another, so
    // the horizon is the least of the snapshot's xmax and every xid running at the snapshot except those proven to
    // run in another database: a backend of pg_stat_activity, or a prepared transaction, that names it with another
    // database. Proof only ever removes an xid: one that ended meanwhile or that nothing names keeps holding.
    // pg_stat_activity is copied once per transaction, after the statement's snapshot was taken: a backend keeps its
    // slot for life and only ever shows an xid it assigned itself, so a slot that names an xid of the snapshot was that
    // transaction's backend when its database was read. STABLE: the function sees its caller's snapshot, so the
    // horizon and the rows read with it are one snapshot's; call it once per statement as (SELECT …) and in a
    // statement of its own transaction (an autocommit query), so that pg_stat_activity is copied after the snapshot.
    sql: `
      CREATE FUNCTION {schema}.first_unreadable_position() RETURNS bigint
      LANGUAGE sql STABLE AS $horizon$
        SELECT least(
          pg_snapshot_xmax(snapshot.s)::text::bigint,
          (SELECT min(running.xid::text::bigint) FROM pg_snapshot_xip(snapshot.s) AS running(xid)
           WHERE NOT EXISTS (
               SELECT FROM pg_stat_activity AS a
               WHERE a.backend_xid::text::bigint = running.xid::text::bigint % 4294967296
                 AND a.datid <> (SELECT d.oid FROM pg_database AS d WHERE d.datname = current_database()))
             AND NOT EXISTS (
               SELECT FROM pg_prepared_xacts AS p
               WHERE p.transaction::text::bigint = running.xid::text::bigint % 4294967296 AND p.database <> current_database()))
        ) << 16
        FROM pg_current_snapshot() AS snapshot(s)
      $horizon$;
    `,
  },
];

/**
 * The function of migration 3 (every part appends: conditions `none`), of migration 4 (a part with no events is a
 * condition, read) and of migration 5 (a condition is read under a share lock). Each is kept as it was applied, so
 * that a database's history can be replayed.
 */
function appendToStreamsFunction(create: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION', conditions: 'none' | 'read' | 'share'): string {
  const withConditions = conditions !== 'none';
  const lockOrRead = withConditions
    ? `IF p_counts[i] = 0 THEN
            SELECT s.revision INTO v_revision FROM {schema}.streams AS s WHERE s.stream_name = p_streams[i]${conditions === 'share' ? ' FOR SHARE' : ''};
          ELSE
            SELECT s.revision INTO v_revision FROM {schema}.streams AS s WHERE s.stream_name = p_streams[i] FOR UPDATE;
          END IF;`
    : `SELECT s.revision INTO v_revision FROM {schema}.streams AS s WHERE s.stream_name = p_streams[i] FOR UPDATE;`;
  const skipCondition = withConditions
    ? `IF p_counts[i] = 0 THEN
            CONTINUE;
          ELSIF v_exists[i] THEN`
    : `IF v_exists[i] THEN`;
  return `
      ${create} {schema}.append_to_streams(
        p_streams text[], p_expected_kinds text[], p_expected bigint[], p_counts int[], p_check_ids boolean,
        p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
      ) RETURNS TABLE (outcome text, event_id uuid, stream_name text, revision bigint, event_position bigint)
      LANGUAGE plpgsql AS $append$
      #variable_conflict use_column
      DECLARE
        v_order int[];
        v_current bigint[] := array_fill(-1::bigint, ARRAY[cardinality(p_streams)]);
        v_exists boolean[] := array_fill(false, ARRAY[cardinality(p_streams)]);
        v_stream_of int[];
        v_revision_of bigint[];
        v_revision bigint;
        v_matches boolean;
        i int;
      BEGIN
        SELECT array_agg(n.ord::int ORDER BY n.name) INTO v_order FROM unnest(p_streams) WITH ORDINALITY AS n(name, ord);
        FOREACH i IN ARRAY v_order LOOP
          ${lockOrRead}
          IF FOUND THEN
            v_current[i] := v_revision;
            v_exists[i] := true;
          END IF;
        END LOOP;
        IF p_check_ids THEN
          RETURN QUERY EXECUTE 'SELECT ''stored''::text, e.event_id, e.stream_name, e.revision, e.position
            FROM {schema}.events AS e WHERE e.event_id = ANY ($1) ORDER BY e.position' USING p_ids;
          IF FOUND THEN RETURN; END IF;
        END IF;
        FOR i IN 1 .. cardinality(p_streams) LOOP
          v_matches := CASE p_expected_kinds[i]
            WHEN 'any' THEN true
            WHEN 'no_stream' THEN v_current[i] = -1
            WHEN 'stream_exists' THEN v_current[i] >= 0
            ELSE v_current[i] = p_expected[i]
          END;
          IF NOT v_matches THEN
            RETURN QUERY SELECT 'wrong_revision'::text, NULL::uuid, p_streams[i], v_current[i], NULL::bigint;
            RETURN;
          END IF;
        END LOOP;
        FOREACH i IN ARRAY v_order LOOP
          ${skipCondition}
            UPDATE {schema}.streams AS s SET revision = v_current[i] + p_counts[i] WHERE s.stream_name = p_streams[i];
          ELSE
            INSERT INTO {schema}.streams AS s (stream_name, revision) VALUES (p_streams[i], p_counts[i] - 1) ON CONFLICT DO NOTHING;
            IF NOT FOUND THEN
              SELECT s.revision INTO v_revision FROM {schema}.streams AS s WHERE s.stream_name = p_streams[i];
              RAISE EXCEPTION 'stream % was created by another append meanwhile', p_streams[i]
                USING ERRCODE = 'SL409', DETAIL = json_build_object('streamName', p_streams[i], 'revision', v_revision)::text;
            END IF;
          END IF;
        END LOOP;
        SELECT array_agg(c.ord::int ORDER BY c.ord, g.n), array_agg(v_current[c.ord::int] + g.n ORDER BY c.ord, g.n)
          INTO v_stream_of, v_revision_of
          FROM unnest(p_counts) WITH ORDINALITY AS c(count, ord), generate_series(1, c.count) AS g(n);
        RETURN QUERY
          WITH inserted AS (
            INSERT INTO {schema}.events (position, stream_name, revision, event_id, type, data, metadata)
            SELECT (pg_current_xact_id()::text::bigint << 16) + n.ord, p_streams[n.stream], n.revision, n.id, n.type, n.data, n.metadata
            FROM unnest(p_ids, p_types, p_data, p_metadata, v_stream_of, v_revision_of) WITH ORDINALITY AS n(id, type, data, metadata, stream, revision, ord)
            RETURNING position, stream_name
          )
          SELECT 'appended'::text, NULL::uuid, p_streams[c.ord::int], v_current[c.ord::int] + c.count, max(w.position)
          FROM unnest(p_counts) WITH ORDINALITY AS c(count, ord) ${withConditions ? 'LEFT JOIN' : 'JOIN'} inserted AS w ON w.stream_name = p_streams[c.ord::int]
          GROUP BY c.ord, c.count ORDER BY c.ord;
      END;
      $append$;
  `;
}

/** Events an append may carry: the index within the transaction has 16 bits, and 0 is unused. */
export const MAX_EVENTS_PER_APPEND = 65_535;
