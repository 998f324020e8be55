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
  {
    id: 4,
    name: 'session tree and stream snapshots',
    // path is the chain of ids from the tree's root, '/'-joined; the C collation makes a subtree one index range.
    sql: `
      CREATE TABLE {schema}.session_tree (
        session_id text PRIMARY KEY,
        parent_id text,
        root_id text NOT NULL,
        depth integer NOT NULL,
        path text COLLATE "C" NOT NULL,
        kind text NOT NULL,
        agent_name text,
        created_at timestamptz NOT NULL,
        destroyed boolean NOT NULL DEFAULT false,
        destroyed_at timestamptz
      );
      CREATE UNIQUE INDEX session_tree_path ON {schema}.session_tree (path);
      CREATE INDEX session_tree_parent ON {schema}.session_tree (parent_id, created_at, session_id);
      CREATE TABLE {schema}.stream_snapshots (
        stream_name text PRIMARY KEY,
        state_version text NOT NULL,
        revision bigint NOT NULL,
        position bigint NOT NULL,
        state text NOT NULL,
        taken_at timestamptz NOT NULL
      )
    `,
  },
  {
    // Ids 3 and 4 belong to other read models; jobs took 5.
    id: 5,
    name: 'jobs',
    sql: `
      CREATE TABLE {schema}.jobs (
        job_id text PRIMARY KEY,
        status text NOT NULL,
        enabled boolean NOT NULL,
        next_run_at timestamptz,
        name text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        revision bigint NOT NULL,
        last_position bigint NOT NULL,
        state jsonb NOT NULL
      );
      CREATE INDEX jobs_due ON {schema}.jobs (next_run_at) WHERE enabled;
      CREATE TABLE {schema}.job_webhook_checkpoints (
        name text PRIMARY KEY,
        position bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )
    `,
  },
  {
    // Ids 1-5 belong to other read models.
    id: 6,
    name: 'runtime sessions',
    sql: `
      CREATE TABLE {schema}.runtime_sessions (
        runtime_session_id text PRIMARY KEY,
        session_key text NOT NULL,
        provider text NOT NULL,
        model text NOT NULL,
        state text NOT NULL,
        last_worker_event_at timestamptz,
        updated_at timestamptz NOT NULL,
        last_position bigint NOT NULL,
        folded jsonb NOT NULL
      );
      CREATE INDEX runtime_sessions_in_flight ON {schema}.runtime_sessions (last_worker_event_at) WHERE state IN ('starting', 'running', 'waiting_user', 'waiting_approval')
    `,
  },
  {
    // Ids 1-6 belong to other read models. Tenants: every row belongs to one ('' is the default tenant).
    id: 7,
    name: 'tenants',
    sql: `
      ALTER TABLE {schema}.conversation_entries ADD COLUMN tenant text NOT NULL DEFAULT '';
      ALTER TABLE {schema}.conversation_entries DROP CONSTRAINT conversation_entries_pkey;
      ALTER TABLE {schema}.conversation_entries ADD PRIMARY KEY (tenant, session_key);
      DROP INDEX {schema}.conversation_entries_recent;
      CREATE INDEX conversation_entries_recent ON {schema}.conversation_entries (tenant, updated_at DESC, session_key);
      DROP INDEX {schema}.conversation_entries_session;
      CREATE INDEX conversation_entries_session ON {schema}.conversation_entries (tenant, session_id);
      ALTER TABLE {schema}.session_records ADD COLUMN tenant text NOT NULL DEFAULT '';
      ALTER TABLE {schema}.session_records DROP CONSTRAINT session_records_pkey;
      ALTER TABLE {schema}.session_records ADD PRIMARY KEY (tenant, session_id);
      ALTER TABLE {schema}.session_tree ADD COLUMN tenant text NOT NULL DEFAULT '';
      ALTER TABLE {schema}.session_tree DROP CONSTRAINT session_tree_pkey;
      ALTER TABLE {schema}.session_tree ADD PRIMARY KEY (tenant, session_id);
      DROP INDEX {schema}.session_tree_path;
      CREATE UNIQUE INDEX session_tree_path ON {schema}.session_tree (tenant, path);
      DROP INDEX {schema}.session_tree_parent;
      CREATE INDEX session_tree_parent ON {schema}.session_tree (tenant, parent_id, created_at, session_id);
      ALTER TABLE {schema}.jobs ADD COLUMN tenant text NOT NULL DEFAULT '';
      ALTER TABLE {schema}.jobs DROP CONSTRAINT jobs_pkey;
      ALTER TABLE {schema}.jobs ADD PRIMARY KEY (tenant, job_id);
      ALTER TABLE {schema}.runtime_sessions ADD COLUMN tenant text NOT NULL DEFAULT '';
      ALTER TABLE {schema}.runtime_sessions DROP CONSTRAINT runtime_sessions_pkey;
      ALTER TABLE {schema}.runtime_sessions ADD PRIMARY KEY (tenant, runtime_session_id)
    `,
  },
  {
    // Ids 1-7 belong to other read models.
    id: 8,
    name: 'carried fields of imported entries',
    sql: `ALTER TABLE {schema}.conversation_entries ADD COLUMN carried_fields jsonb`,
  },
  {
    // Ids 1-8 belong to other read models. The log may hold usage summed past bigint (2^63 - 1) from before the
    // API bounded it; a counter column must hold every sum the fold can reach, or one event stops the projection.
    id: 9,
    name: 'usage counters as numeric',
    sql: `
      ALTER TABLE {schema}.conversation_entries ALTER COLUMN input_tokens TYPE numeric, ALTER COLUMN output_tokens TYPE numeric, ALTER COLUMN cache_read_tokens TYPE numeric, ALTER COLUMN cache_write_tokens TYPE numeric, ALTER COLUMN total_tokens TYPE numeric, ALTER COLUMN last_prompt_tokens TYPE numeric;
      ALTER TABLE {schema}.session_records ALTER COLUMN input_tokens TYPE numeric, ALTER COLUMN output_tokens TYPE numeric, ALTER COLUMN cache_read_tokens TYPE numeric, ALTER COLUMN cache_write_tokens TYPE numeric, ALTER COLUMN total_tokens TYPE numeric, ALTER COLUMN last_prompt_tokens TYPE numeric
    `,
  },
  {
    // Ids 1-9 belong to other read models. Sessions started before this migration show no turn in flight until a rebuild.
    id: 10,
    name: 'session turns in flight',
    sql: `
      ALTER TABLE {schema}.session_records ADD COLUMN turn_in_flight_index integer;
      ALTER TABLE {schema}.session_records ADD COLUMN turn_in_flight_since timestamptz;
      ALTER TABLE {schema}.session_records ADD COLUMN last_abandoned_turn jsonb;
      CREATE INDEX session_records_turn_in_flight ON {schema}.session_records (turn_in_flight_since) WHERE turn_in_flight_since IS NOT NULL
    `,
  },
  {
    // Ids 1-10 belong to other read models. A stream a projection cannot apply is parked here, with the events it
    // skipped, instead of stopping the projection for every tenant (see the projection runner).
    id: 11,
    name: 'parked streams',
    sql: `
      CREATE TABLE {schema}.projection_parked_streams (
        projection text NOT NULL,
        stream_name text NOT NULL,
        first_position bigint NOT NULL,
        last_position bigint NOT NULL,
        skipped_events integer NOT NULL,
        error text NOT NULL,
        parked_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (projection, stream_name)
      )
    `,
  },
  {
    // Ids 1-11 belong to other read models. Transcript search: every message a transcript ever held, its words in a
    // tsvector ('simple' configuration: no stemming, no stop words, the same for every language) under a GIN index.
    id: 12,
    name: 'transcript search',
    sql: `
      CREATE TABLE {schema}.search_sessions (
        tenant text NOT NULL,
        session_id text NOT NULL,
        session_key text NOT NULL,
        platform text NOT NULL,
        transcript_length integer NOT NULL,
        next_seq integer NOT NULL,
        destroyed boolean NOT NULL DEFAULT false,
        PRIMARY KEY (tenant, session_id)
      );
      CREATE TABLE {schema}.search_messages (
        tenant text NOT NULL,
        session_id text NOT NULL,
        seq integer NOT NULL,
        session_key text NOT NULL,
        platform text NOT NULL,
        ordinal integer,
        message_index integer NOT NULL,
        turn_index integer NOT NULL,
        slot text NOT NULL,
        role text NOT NULL,
        at timestamptz NOT NULL,
        deleted boolean NOT NULL,
        session_destroyed boolean NOT NULL,
        body text NOT NULL,
        terms tsvector NOT NULL,
        PRIMARY KEY (tenant, session_id, seq)
      );
      CREATE INDEX search_messages_terms ON {schema}.search_messages USING gin (terms)
    `,
  },
  {
    // Ids 1-12 belong to other read models. No conversation had a policy of its own before it.
    id: 13,
    name: 'conversation reset policies',
    sql: `
      ALTER TABLE {schema}.conversation_entries ADD COLUMN reset_policy jsonb;
      CREATE INDEX conversation_entries_own_reset_policy ON {schema}.conversation_entries (tenant, session_key) WHERE reset_policy IS NOT NULL
    `,
  },
  {
    // Ids 1-13 belong to other read models. Entries the reset sweep expired before it say expiry_finalized false until a rebuild.
    id: 14,
    name: 'expired conversation entries',
    sql: `ALTER TABLE {schema}.conversation_entries ADD COLUMN expired jsonb`,
  },
  {
    // Ids 1-14 belong to other read models. Sessions created by their external id, listed by namespace, newest first.
    id: 15,
    name: 'agent sessions',
    sql: `
      CREATE TABLE {schema}.agent_sessions (
        tenant text NOT NULL,
        session_id text NOT NULL,
        namespace text NOT NULL,
        external_id text NOT NULL,
        agent_name text,
        metadata jsonb NOT NULL,
        status text NOT NULL,
        item_count integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, session_id)
      );
      CREATE INDEX agent_sessions_recent ON {schema}.agent_sessions (tenant, namespace, updated_at DESC, session_id)
    `,
  },
  {
    // Ids 1-15 belong to other read models. Items appended before it are found once the transcript-search read model is
    // rebuilt (`npm run ledger -- projections rebuild transcript-search`).
    id: 16,
    name: 'item histories in transcript search',
    sql: `
      ALTER TABLE {schema}.search_messages ADD COLUMN item_id text, ADD COLUMN appended_revision bigint, ADD COLUMN removed_revision bigint,
        ALTER COLUMN turn_index DROP NOT NULL, ALTER COLUMN slot DROP NOT NULL
    `,
  },
  {
    // Ids 1-16 belong to other read models. Counts the targeted repairs of a projection's rows (a refold of some
    // streams after their events were rewritten in place): a batch read before one must not commit after it.
    id: 17,
    name: 'projection checkpoint repairs',
    sql: `ALTER TABLE {schema}.projection_checkpoints ADD COLUMN repairs bigint NOT NULL DEFAULT 0`,
  },
];
