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
];

/** Events an append may carry: the index within the transaction has 16 bits, and 0 is unused. */
export const MAX_EVENTS_PER_APPEND = 65_535;

