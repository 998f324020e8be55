// Only a transaction in the log's own database holds readers of the event log back (it could still append): the service
// says so on /ready, in /metrics and in the read's own error, and reads resume when it ends. One in another database
// of the same PostgreSQL server (a pg_dump of a neighbour) holds nothing.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;
const source = (chatId: string) => ({ platform: 'telegram', chatType: 'dm', chatId, userId: chatId });

/** Writes a conversation and answers its key and the position the write reached. */
async function written(service: TestApp, chatId: string): Promise<{ sessionKey: string; position: number }> {
  const resolved = await service.request('POST', '/v1/sessions/resolve', { body: { source: source(chatId), gatewayId: 'gw' } });
  expect(resolved.status, resolved.text).toBe(201);
  return { sessionKey: resolved.body.sessionKey, position: resolved.body.position };
}

for (const backend of e2eBackends()) {
  describe(`event log horizon (${backend})`, () => {
    if (backend === 'pglite') {
      let service: TestApp;
      beforeAll(async () => {
        service = await startTestApp(backend, { env: { READ_WAIT_TIMEOUT_MS: '1500', EVENT_LOG_HORIZON_STALL_SECONDS: '1' } });
      });
      afterAll(async () => {
        await service?.close();
      });
      it('has no horizon held by other transactions on the embedded database: /ready carries no horizon check, reads wait only for the projections', async () => {
        const { sessionKey, position } = await written(service, '100');
        const ready = await service.request('GET', '/ready');
        expect(ready.status).toBe(200);
        expect(ready.body.status).toBe('ready');
        expect(ready.body.checks.eventLogHorizon).toBeUndefined();
        expect((await service.request('GET', `/v1/sessions/by-key/${enc(sessionKey)}?minPosition=${position}`)).status).toBe(200);
        expect((await service.request('GET', '/metrics')).text).not.toContain('ledger_event_log_horizon_held_seconds{');
      });
      return;
    }

    const serverUrl = process.env.TEST_DATABASE_URL!;
    const databaseUrl = (name: string) => {
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return url.toString();
    };
    // The ledger in a database of its own, so that other tests' transactions in the shared one never hold it here.
    const ledgerDatabase = `ledger_horizon_${randomBytes(5).toString('hex')}`;
    const neighbourDatabase = `ledger_neighbour_${randomBytes(5).toString('hex')}`;
    let admin: pg.Client;
    let service: TestApp;
    let sameDatabase: pg.Client;
    let neighbour: pg.Client;
    beforeAll(async () => {
      admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${ledgerDatabase}"`);
      await admin.query(`CREATE DATABASE "${neighbourDatabase}"`);
      service = await startTestApp(backend, {
        env: { READ_WAIT_TIMEOUT_MS: '1500', EVENT_LOG_HORIZON_STALL_SECONDS: '1', EVENT_STORE_URL: databaseUrl(ledgerDatabase) },
      });
      sameDatabase = new pg.Client({ connectionString: databaseUrl(ledgerDatabase) });
      await sameDatabase.connect();
      neighbour = new pg.Client({ connectionString: databaseUrl(neighbourDatabase) });
      await neighbour.connect();
    });
    afterAll(async () => {
      await service?.close();
      await sameDatabase?.end().catch(() => undefined);
      await neighbour?.end().catch(() => undefined);
      for (const name of [ledgerDatabase, neighbourDatabase]) await admin?.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin?.end();
    });

    it('is not held by a transaction in another database of the server: reads of new writes answer at once, /ready stays ready', async () => {
      // A transaction with a real transaction id, as a pg_dump of the neighbour holds for its whole run.
      await neighbour.query('BEGIN');
      const { rows } = await neighbour.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_current_xact_id()');
      const pid = rows[0]!.pid;
      try {
        for (const chatId of ['400', '401', '402']) {
          const { sessionKey, position } = await written(service, chatId);
          const started = Date.now();
          const read = await service.request('GET', `/v1/sessions/by-key/${enc(sessionKey)}?minPosition=${position}`);
          expect(read.status, read.text).toBe(200);
          expect(Date.now() - started).toBeLessThan(1_500);
        }
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const ready = await service.request('GET', '/ready');
        expect(ready.status).toBe(200);
        expect(ready.body.checks.eventLogHorizon, ready.text).toEqual({ ok: true });
        expect(ready.body.status, ready.text).toBe('ready');
        expect((await service.request('GET', '/metrics')).text).not.toContain(`pid="${pid}"`);
      } finally {
        await neighbour.query('ROLLBACK');
      }
    });

    it('is held by a transaction in its own database, which it names on the read, on /ready and in /metrics, and recovers when it ends', async () => {
      const before = await written(service, '200');
      const readBefore = () => service.request('GET', `/v1/sessions/by-key/${enc(before.sessionKey)}?minPosition=${before.position}`);
      const first = await eventually(readBefore, (response) => response.status === 200, 30_000);
      expect(first.status, first.text).toBe(200);
      expect((await service.request('GET', '/ready')).body.checks.eventLogHorizon).toBeDefined();

      // A transaction with a real transaction id in the ledger's database, outside the service: it could still append.
      // (Conservative: it is held for whatever it writes, as the service cannot tell what that transaction will do.)
      const database = ledgerDatabase;
      await sameDatabase.query('BEGIN');
      const { rows } = await sameDatabase.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_current_xact_id()');
      const pid = rows[0]!.pid;
      try {
        const during = await written(service, '300');
        const read = await service.request('GET', `/v1/sessions/by-key/${enc(during.sessionKey)}?minPosition=${during.position}`);
        expect(read.status, read.text).toBe(503);
        expect(read.body.error.code).toBe('EVENT_LOG_HORIZON_HELD');
        expect(read.body.error.message).toContain(`backend pid ${pid}`);
        expect(read.body.error.message).toContain(`database "${database}"`);
        expect(read.body.error.details).toMatchObject({ minPosition: during.position, pid, database });
        // A position below the horizon is still a matter of the projections alone.
        expect((await readBefore()).status).toBe(200);
        // A position no transaction begun so far could have written is not the holder's doing either.
        const never = await service.request('GET', `/v1/sessions/by-key/${enc(during.sessionKey)}?minPosition=${during.position * 2}`);
        expect(never.status, never.text).toBe(503);
        expect(never.body.error.code).toBe('PROJECTION_NOT_CAUGHT_UP');

        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const ready = await service.request('GET', '/ready');
        expect(ready.status).toBe(200);
        expect(ready.body.status).toBe('degraded');
        expect(ready.body.checks.eventLogHorizon).toMatchObject({ ok: false, holder: { pid, database } });
        expect(ready.body.checks.eventLogHorizon.holder.heldSeconds).toBeGreaterThanOrEqual(1);

        const metrics = (await service.request('GET', '/metrics')).text;
        const line = metrics
          .split('\n')
          .find((candidate) => candidate.startsWith(`ledger_event_log_horizon_held_seconds{pid="${pid}",database="${database}"}`));
        expect(
          line,
          metrics
            .split('\n')
            .filter((candidate) => candidate.includes('horizon'))
            .join('\n'),
        ).toBeDefined();
        expect(Number(line!.split(' ').at(-1))).toBeGreaterThanOrEqual(1);

        await sameDatabase.query('COMMIT');
        const readAfter = () => service.request('GET', `/v1/sessions/by-key/${enc(during.sessionKey)}?minPosition=${during.position}`);
        const after = await eventually(readAfter, (response) => response.status === 200, 30_000);
        expect(after.status, after.text).toBe(200);
        expect((await service.request('GET', '/ready')).body.checks.eventLogHorizon.holder?.pid).not.toBe(pid);
        expect((await service.request('GET', '/metrics')).text).not.toContain(`pid="${pid}"`);
      } finally {
        await sameDatabase.query('ROLLBACK').catch(() => undefined);
      }
    });
  });
}
