// Read-model tables, created by migration (TypeORM's synchronize stays off so upgrades are deliberate).
import type { Migration } from '../database/migrate.js';

export const readModelMigrations: readonly Migration[] = [
  {
    id: 1,
    name: 'projection checkpoints',
    sql: `
      CREATE TABLE {schema}.projection_checkpoints (
        name text PRIMARY KEY,
        position bigint NOT NULL DEFAULT 0,
        state text NOT NULL DEFAULT 'starting',
        last_error text,
        failed_position bigint,
        updated_at timestamptz NOT NULL DEFAULT now()
      )
    `,
  },
  {
    id: 2,
    name: 'stream index',
    sql: `
      CREATE TABLE {schema}.stream_index (
        stream_name text PRIMARY KEY,
        category text NOT NULL,
        revision bigint NOT NULL,
        event_count bigint NOT NULL,
        last_position bigint NOT NULL,
        last_event_type text NOT NULL,
        first_event_at timestamptz NOT NULL,
        last_event_at timestamptz NOT NULL
      );
      CREATE INDEX stream_index_category ON {schema}.stream_index (category, last_position DESC)
    `,
  },
];
