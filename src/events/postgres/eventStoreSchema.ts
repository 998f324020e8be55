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
];

/** Events an append may carry: the index within the transaction has 16 bits, and 0 is unused. */
export const MAX_EVENTS_PER_APPEND = 65_535;
