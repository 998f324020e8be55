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
  {
    id: 3,
    name: 'sessions index',
    sql: `
      CREATE TABLE {schema}.conversation_entries (
        session_key text PRIMARY KEY,
        session_id text,
        created_at timestamptz,
        updated_at timestamptz NOT NULL,
        origin jsonb NOT NULL,
        display_name text,
        platform text NOT NULL,
        chat_type text NOT NULL,
        gateway_id text NOT NULL,
        suspended boolean NOT NULL DEFAULT false,
        resume_pending boolean NOT NULL DEFAULT false,
        resume_reason text,
        last_resume_marked_at timestamptz,
        was_auto_reset boolean NOT NULL DEFAULT false,
        auto_reset_reason text,
        reset_had_activity boolean NOT NULL DEFAULT false,
        is_fresh_reset boolean NOT NULL DEFAULT false,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        cache_read_tokens bigint NOT NULL DEFAULT 0,
        cache_write_tokens bigint NOT NULL DEFAULT 0,
        total_tokens bigint NOT NULL DEFAULT 0,
        estimated_cost_usd double precision NOT NULL DEFAULT 0,
        last_prompt_tokens bigint NOT NULL DEFAULT 0,
        turn_count integer NOT NULL DEFAULT 0
      );
      CREATE INDEX conversation_entries_recent ON {schema}.conversation_entries (updated_at DESC, session_key);
      CREATE INDEX conversation_entries_session ON {schema}.conversation_entries (session_id);
      CREATE TABLE {schema}.session_records (
        session_id text PRIMARY KEY,
        session_key text NOT NULL,
        status text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        ended_at timestamptz,
        end_reason text,
        origin jsonb NOT NULL,
        message_count integer NOT NULL DEFAULT 0,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        cache_read_tokens bigint NOT NULL DEFAULT 0,
        cache_write_tokens bigint NOT NULL DEFAULT 0,
        total_tokens bigint NOT NULL DEFAULT 0,
        estimated_cost_usd double precision NOT NULL DEFAULT 0,
        last_prompt_tokens bigint NOT NULL DEFAULT 0,
        turn_count integer NOT NULL DEFAULT 0
      )
    `,
  },
];
