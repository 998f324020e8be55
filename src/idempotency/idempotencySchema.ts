// The table of idempotency keys: who claimed a key, for which request, and the answer to replay.
import type { Migration } from '../database/migrate.js';

export const idempotencyMigrations: readonly Migration[] = [
  {
    id: 1,
    name: 'idempotency keys',
    // In the read-model database, which every backend has (EventStoreDB included). Not a read model: nothing
    // rebuilds it. `nonce` seeds the event ids of the request's writes (see IdempotentWrite); `status` is null
    // while the request runs, under a lease its instance renews; `body` is the answer's JSON text as sent.
    sql: `
      CREATE TABLE {schema}.idempotency_keys (
        tenant text NOT NULL,
        idempotency_key text NOT NULL,
        fingerprint text NOT NULL,
        nonce uuid NOT NULL,
        attempts integer NOT NULL,
        status smallint,
        body text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        PRIMARY KEY (tenant, idempotency_key)
      );
      CREATE INDEX idempotency_keys_created_at ON {schema}.idempotency_keys (created_at);
    `,
  },
];
