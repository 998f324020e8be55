// The event-store contract on EventStoreDB when ESDB_TEST_URL is set (see docs/eventstoredb.md); connection strings always.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors/ledgerError.js';
import { EsdbEventStore } from '../../src/events/esdb/esdbEventStore.js';
import { describeEventStoreContract } from './eventStoreContract.js';

const esdbTestUrl = process.env.ESDB_TEST_URL;

if (esdbTestUrl) {
  // One shared server: the contract prefixes its stream names with a run id, so a fresh store per open is enough.
  describeEventStoreContract('EventStoreDB', async () => {
    const store = new EsdbEventStore(esdbTestUrl);
    return { store, close: () => store.close() };
  });

  describe('EventStoreDB reachability', () => {
    it('answers ping', async () => {
      const store = new EsdbEventStore(esdbTestUrl, { deadlineMs: 5_000 });
      try {
        await expect(store.ping()).resolves.toBeUndefined();
      } finally {
        await store.close();
      }
    });
  });
}

describe('EsdbEventStore connection string', () => {
  it.each(['esdb://127.0.0.1:2113?tls=false', 'esdb://admin:changeit@host-a:2113,host-b:2113?tls=true', 'esdb+discover://cluster.internal:2113'])(
    'accepts %s without connecting',
    async (connectionString) => {
      const store = new EsdbEventStore(connectionString);
      expect(store.backend).toBe('esdb');
      await store.close();
    },
  );

  it.each([
    ['another scheme', 'postgres://127.0.0.1:5432/ledger', /expected esdb:\/\/ or esdb\+discover:\/\//],
    ['a port that is not a number', 'esdb://127.0.0.1:port?tls=false', /expected port number/],
    ['a setting with a bad value', 'esdb://127.0.0.1:2113?tls=maybe', /expected true or false/],
  ])('rejects %s with a ValidationError that says what was expected', (_case, connectionString, reason) => {
    const attempt = () => new EsdbEventStore(connectionString);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(reason);
  });

  it('does not echo the credentials of a rejected connection string', () => {
    expect(() => new EsdbEventStore('esdb://admin:s3cret@127.0.0.1:notaport')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cret') }),
    );
  });
});
