// GET /v1/sessions/{id}/items/{itemId} over real HTTP: an item by its id (one with `/` and `:` in it), a miss, an item
// popped, cleared or rolled back, one appended again after its removal, and one a fork started with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`one item by its id: ${backend}`, () => {
    let service: TestApp;
    let counter = 0;
    const ok = async (method: string, path: string, body?: unknown) => {
      const response = await service.request(method, path, { body });
      expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
      return response.body;
    };
    const newSession = async () => (await ok('PUT', `/v1/namespaces/items-by-id/sessions/session-${++counter}`)).sessionId as string;
    const item = (sessionId: string, itemId: string) => service.request('GET', `/v1/sessions/${sessionId}/items/${enc(itemId)}`);

    beforeAll(async () => {
      service = await startTestApp(backend);
    });
    afterAll(async () => {
      await service?.close();
    });

    it('answers an item by its id, whatever characters the id holds, and 404 ITEM_NOT_FOUND for one the history does not hold', async () => {
      const sessionId = await newSession();
      await ok('POST', `/v1/sessions/${sessionId}/items`, {
        items: [{ id: 'checkpoint/child:1/abc', text: 'first' }, { id: 'plain', text: 'second' }, { text: 'no id' }],
      });
      const found = await item(sessionId, 'checkpoint/child:1/abc');
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({
        sessionId,
        item: { id: 'checkpoint/child:1/abc', index: 0, item: { id: 'checkpoint/child:1/abc', text: 'first' } },
        itemCount: 3,
      });
      expect(typeof found.body.item.at).toBe('string');
      expect((await item(sessionId, 'plain')).body.item).toMatchObject({ index: 1, item: { text: 'second' } });
      const missing = await item(sessionId, 'nothing-of-that-id');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('ITEM_NOT_FOUND');
      expect((await service.request('GET', `/v1/sessions/ag_00000000000000000000000000000000/items/plain`)).body.error.code).toBe('SESSION_NOT_FOUND');
    });

    it('does not answer an item popped, cleared or rolled back, and answers the one appended again after its removal', async () => {
      const sessionId = await newSession();
      await ok('POST', `/v1/sessions/${sessionId}/items`, {
        items: [
          { id: 'a', v: 1 },
          { id: 'b', v: 1 },
        ],
      });
      await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      expect((await item(sessionId, 'b')).status).toBe(404);
      expect((await item(sessionId, 'a')).status).toBe(200);
      await ok('POST', `/v1/sessions/${sessionId}/items`, { items: [{ id: 'b', v: 2 }] });
      expect((await item(sessionId, 'b')).body.item).toMatchObject({ index: 1, item: { v: 2 } });

      const checkpoint = await ok('POST', `/v1/sessions/${sessionId}/checkpoints`, {});
      await ok('POST', `/v1/sessions/${sessionId}/items`, { items: [{ id: 'c', v: 1 }] });
      await ok('POST', `/v1/sessions/${sessionId}/rollback`, { checkpointId: checkpoint.checkpointId });
      expect((await item(sessionId, 'c')).status).toBe(404);
      expect((await item(sessionId, 'b')).body.item.item).toEqual({ id: 'b', v: 2 });

      await ok('DELETE', `/v1/sessions/${sessionId}/items`);
      expect((await item(sessionId, 'a')).status).toBe(404);
    });

    it("answers the items a fork started with from its parent's history, and the fork's own", async () => {
      const parent = await newSession();
      await ok('POST', `/v1/sessions/${parent}/items`, { items: [{ id: 'p1', v: 'parent' }] });
      const checkpoint = await ok('POST', `/v1/sessions/${parent}/checkpoints`, {});
      await ok('POST', `/v1/sessions/${parent}/items`, { items: [{ id: 'p2', v: 'after the fork point' }] });
      const fork = (await ok('POST', `/v1/sessions/${parent}/fork`, { checkpointId: checkpoint.checkpointId })).sessionId as string;
      await ok('POST', `/v1/sessions/${fork}/items`, { items: [{ id: 'f1', v: 'fork' }] });
      expect((await item(fork, 'p1')).body.item).toMatchObject({ index: 0, item: { v: 'parent' } });
      expect((await item(fork, 'f1')).body.item).toMatchObject({ index: 1, item: { v: 'fork' } });
      expect((await item(fork, 'p2')).status).toBe(404);
    });
  });
}
