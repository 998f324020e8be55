// Instances that run no projections (PROJECTIONS_ENABLED=false): alone on an embedded folder, and as API instances
// beside a projector-only instance on one PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

describe('an embedded instance that runs no projections', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-no-projections-'));
  // The same schemas for both instances on the folder.
  const schema = uniqueSchema('no_projections');
  let app: TestApp | undefined;
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records writes, answers 503 PROJECTION_NOT_CAUGHT_UP to reads of them, and serves them once an instance with projections opens the folder', async () => {
    const env = { DATA_DIR: dataDir, READ_WAIT_TIMEOUT_MS: '300', JOB_TICK_INTERVAL_MS: '0' };
    app = await startTestApp('pglite', { schema, env: { ...env, PROJECTIONS_ENABLED: 'false' } });
    const resolved = await app.request('POST', '/v1/sessions/resolve', { body: { source: { platform: 'slack', chatType: 'dm', chatId: 'no-projector' } } });
    expect(resolved.status, resolved.text).toBe(201);
    const { sessionKey, sessionId, position } = resolved.body as { sessionKey: string; sessionId: string; position: number };
    const read = () => app!.request('GET', `/v1/conversations/${enc(sessionKey)}/entry?minPosition=${position}`);
    const stalled = await read();
    expect(stalled.status, stalled.text).toBe(503);
    expect(stalled.body.error.code).toBe('PROJECTION_NOT_CAUGHT_UP');
    // The write side does not wait for read models.
    expect((await app.request('GET', `/v1/conversations/${enc(sessionKey)}`)).status).toBe(200);
    await app.close();
    app = undefined;

    app = await startTestApp('pglite', { schema, env: { ...env, PROJECTIONS_ENABLED: 'true', READ_WAIT_TIMEOUT_MS: '5000' } });
    const caughtUp = await read();
    expect(caughtUp.status, caughtUp.text).toBe(200);
    expect(caughtUp.body).toMatchObject({ sessionKey, sessionId });
  });
});

if (backendsUnderTest().includes('postgres')) {
  describe('projections in a projector-only instance, the API instances without them', () => {
    const schema = uniqueSchema('projector_topology');
    let projector: TestApp | undefined;
    let api: TestApp;
    let chat = 0;
    const resolve = async () => {
      const response = await api.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'slack', chatType: 'dm', chatId: `topology-${++chat}` } },
      });
      expect(response.status, response.text).toBe(201);
      return response.body as { sessionKey: string; sessionId: string; position: number };
    };

    beforeAll(async () => {
      projector = await startTestApp('postgres', { schema, keepSchema: true, env: { PROJECTIONS_ENABLED: 'true', JOB_TICK_INTERVAL_MS: '0' } });
      api = await startTestApp('postgres', {
        schema,
        keepSchema: true,
        env: { PROJECTIONS_ENABLED: 'false', READ_WAIT_TIMEOUT_MS: '5000', JOB_TICK_INTERVAL_MS: '0' },
      });
    });
    afterAll(async () => {
      await api?.close();
      await projector?.close();
    });

    it('serves reads of its own writes from the read models the projector keeps, and says so on /ready and the projections view', async () => {
      const written = await resolve();
      const entry = await api.request('GET', `/v1/sessions/by-key/${enc(written.sessionKey)}?minPosition=${written.position}`);
      expect(entry.status, entry.text).toBe(200);
      expect(entry.body).toMatchObject({ sessionKey: written.sessionKey, sessionId: written.sessionId });
      const turn = await api.request('POST', `/v1/sessions/${written.sessionId}/turns`, {
        body: {
          messages: [
            { role: 'user', content: 'which projector wrote this?' },
            { role: 'assistant', content: 'the other one' },
          ],
        },
      });
      expect(turn.status, turn.text).toBe(201);
      const found = await api.request('GET', `/v1/search?q=projector&minPosition=${turn.body.position}`);
      expect(found.status, found.text).toBe(200);
      expect(found.body.hits.map((hit: { sessionId: string }) => hit.sessionId)).toContain(written.sessionId);

      const ready = await api.request('GET', '/ready');
      expect(ready.status, ready.text).toBe(200);
      const projections = await api.request('GET', '/v1/admin/projections');
      expect(projections.status).toBe(200);
      const states = projections.body.projections as Array<{ name: string; state: string; ownedHere: boolean }>;
      expect(states.length).toBeGreaterThan(0);
      for (const projection of states) expect(projection).toMatchObject({ state: 'running elsewhere', ownedHere: false });
    });

    it('answers 503 PROJECTION_NOT_CAUGHT_UP while no projector runs, and catches up once one starts again', async () => {
      await projector!.close();
      projector = undefined;
      const written = await resolve();
      const read = () => api.request('GET', `/v1/sessions/by-key/${enc(written.sessionKey)}?minPosition=${written.position}`);
      const stalled = await read();
      expect(stalled.status, stalled.text).toBe(503);
      expect(stalled.body.error.code).toBe('PROJECTION_NOT_CAUGHT_UP');

      // The last to close drops the schema.
      projector = await startTestApp('postgres', { schema, env: { PROJECTIONS_ENABLED: 'true', JOB_TICK_INTERVAL_MS: '0' } });
      let caughtUp = await read();
      // Each read waits up to READ_WAIT_TIMEOUT_MS; the new projector needs its start-up on top.
      for (let attempt = 0; caughtUp.status === 503 && attempt < 40; attempt++) caughtUp = await read();
      expect(caughtUp.status, caughtUp.text).toBe(200);
      expect(caughtUp.body).toMatchObject({ sessionKey: written.sessionKey, sessionId: written.sessionId });
    });
  });
}
