// A transaction in another database of the same PostgreSQL server holds every reader of the event log back:
// the service says so on /ready, in /metrics and in the read's own error, and reads resume when it ends.
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
    let service: TestApp;
    beforeAll(async () => {
      service = await startTestApp(backend, { env: { READ_WAIT_TIMEOUT_MS: '1500', EVENT_LOG_HORIZON_STALL_SECONDS: '1' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    if (backend === 'pglite') {
      it('has no server-wide horizon on the embedded database: /ready carries no horizon check, reads wait only for the projections', async () => {
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
    const database = `bystander_${randomBytes(5).toString('hex')}`;
    let admin: pg.Client;
    let bystander: pg.Client;
    beforeAll(async () => {
      admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${database}"`);
      const url = new URL(serverUrl);
      url.pathname = `/${database}`;
      bystander = new pg.Client({ connectionString: url.toString() });
      await bystander.connect();
    });
    afterAll(async () => {
      await bystander?.end().catch(() => undefined);
      await admin?.query(`DROP DATABASE IF EXISTS "${database}"`).catch(() => undefined);
      await admin?.end();
    });

    it('names the transaction of another database that holds reads back, on the read, on /ready and in /metrics, and recovers when it ends', async () => {
      const before = await written(service, '200');
      const readBefore = () => service.request('GET', `/v1/sessions/by-key/${enc(before.sessionKey)}?minPosition=${before.position}`);
      const first = await eventually(readBefore, (response) => response.status === 200, 30_000);
      expect(first.status, first.text).toBe(200);
      // Other databases of a shared test server may hold it for a moment too: only the check's presence is certain here.
      expect((await service.request('GET', '/ready')).body.checks.eventLogHorizon).toBeDefined();

      // A transaction with a real transaction id, in a database the service never touches.
      await bystander.query('BEGIN');
      const { rows } = await bystander.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_current_xact_id()');
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

        await bystander.query('COMMIT');
        const readAfter = () => service.request('GET', `/v1/sessions/by-key/${enc(during.sessionKey)}?minPosition=${during.position}`);
        const after = await eventually(readAfter, (response) => response.status === 200, 30_000);
        expect(after.status, after.text).toBe(200);
        expect((await service.request('GET', '/ready')).body.checks.eventLogHorizon.holder?.pid).not.toBe(pid);
        expect((await service.request('GET', '/metrics')).text).not.toContain(`pid="${pid}"`);
      } finally {
        await bystander.query('ROLLBACK').catch(() => undefined);
      }
    });
  });
}
