// The event-store contract on embedded PGlite always, and on PostgreSQL when TEST_DATABASE_URL is set.
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { testBackends } from '../support/testDatabases.js';
import { describeEventStoreContract } from './eventStoreContract.js';

for (const backend of testBackends()) {
  describeEventStoreContract(backend.label, async () => {
    const database = await backend.open();
    const store = await PostgresEventStore.open(database.pool, {
      schema: database.schema,
      listenConnectionString: database.connectionString,
    });
    return {
      store,
      close: async () => {
        await store.close();
        await database.dispose();
      },
    };
  });
}
