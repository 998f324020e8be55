// Sessions named by external ids and item histories over real HTTP: create-or-get (raced), look-up, listing, delete,
// append with ids, newest-first reads and cursors, pop, clear, limits, concurrent appenders, rollback, fork, erasure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const ADMIN = 'agent-admin-token';
const WRITER = 'agent-writer-token';
const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`agent sessions and item histories: ${backend}`, () => {
    let service: TestApp;
    let head = 0;
    let counter = 0;
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await service.request(method, path, { body, headers: { authorization: `Bearer ${WRITER}`, ...headers } });
      head = Math.max(head, response.body?.position ?? 0);
      return response;
    };
    const ok = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await call(method, path, body, headers);
      expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
      return response.body;
    };
    const newSession = async (namespace = 'tests', extra: object = {}) => {
      const externalId = `conv ${backend} ${++counter}/é`;
      const body = await ok('PUT', `/v1/namespaces/${namespace}/sessions/${enc(externalId)}`, extra);
      return { externalId, sessionId: body.sessionId as string };
    };
    const items = (sessionId: string, query = '') => ok('GET', `/v1/sessions/${sessionId}/items${query}`);
    const append = (sessionId: string, body: object, headers: Record<string, string> = {}) => ok('POST', `/v1/sessions/${sessionId}/items`, body, headers);
    const texts = (page: { items: Array<{ item: { text?: string } }> }) => page.items.map((entry) => entry.item.text);

    beforeAll(async () => {
      service = await startTestApp(backend, {
        env: { API_TOKEN: `ops:admin=${ADMIN},agent:write=${WRITER}`, READ_WAIT_TIMEOUT_MS: '5000', MAX_MESSAGE_BYTES: '2000', MAX_MESSAGES_PER_TURN: '50' },
      });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('creates a session by its external id once, however many ask at the same time, and finds it again', async () => {
      const externalId = `raced ${backend}`;
      const path = `/v1/namespaces/race/sessions/${enc(externalId)}`;
      const answers = await Promise.all(Array.from({ length: 12 }, () => call('PUT', path, { agentName: 'planner', metadata: { team: 'a' } })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      const ids = new Set(answers.map((answer) => answer.body.sessionId));
      expect(ids.size).toBe(1);
      const found = await ok('GET', path);
      expect(found).toMatchObject({ namespace: 'race', externalId, agentName: 'planner', metadata: { team: 'a' }, status: 'active', itemCount: 0 });
      expect(found.sessionId).toBe([...ids][0]);
      // A real ledger session: the session routes know it.
      expect((await ok('GET', `/v1/sessions/${found.sessionId}`)).agentName).toBe('planner');
      // Same id in another namespace: another session.
      const other = await call('PUT', `/v1/namespaces/race-2/sessions/${enc(externalId)}`, {});
      expect(other.status).toBe(201);
      expect(other.body.sessionId).not.toBe(found.sessionId);
      expect((await call('GET', `/v1/namespaces/race/sessions/nobody`)).body.error.code).toBe('SESSION_NOT_FOUND');
      expect((await call('PUT', `/v1/namespaces/${enc('bad ns')}/sessions/x`, {})).body.error.code).toBe('INVALID_NAMESPACE');
    });

    it("lists a namespace's sessions newest first, a page at a time, filtered by change time and metadata", async () => {
      const namespace = `list-${backend}`;
      const made: string[] = [];
      for (let index = 0; index < 5; index++) made.push((await newSession(namespace, { metadata: { tier: index % 2 === 0 ? 'gold' : 'free' } })).sessionId);
      // Items are activity: the oldest session becomes the newest.
      await append(made[0]!, { items: [{ text: 'hi' }] });
      const listed = (query: string) => ok('GET', `/v1/namespaces/${namespace}/sessions?minPosition=${head}&${query}`);
      const first = await listed('limit=2');
      expect(first.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([made[0], made[4]]);
      expect(first.sessions[0]).toMatchObject({ namespace, itemCount: 1, status: 'active' });
      const second = await listed(`limit=10&cursor=${first.nextCursor}`);
      expect(second.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([made[3], made[2], made[1]]);
      expect(second.nextCursor).toBeNull();
      const gold = await listed(`metadata=${enc(JSON.stringify({ tier: 'gold' }))}`);
      expect(gold.sessions.map((session: { sessionId: string }) => session.sessionId).sort()).toEqual([made[0], made[2], made[4]].sort());
      const since = first.sessions[0].updatedAt as string;
      expect((await listed(`updatedAfter=${enc(since)}`)).sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([made[0]]);
      expect((await listed(`updatedBefore=${enc(since)}`)).sessions).toHaveLength(4);
      expect((await call('GET', `/v1/namespaces/${namespace}/sessions?metadata=nope`)).body.error.code).toBe('INVALID_METADATA_FILTER');
    });

    it('deletes a session: it is gone from look-ups and listings, and the same id starts a new one', async () => {
      const namespace = `delete-${backend}`;
      const { externalId, sessionId } = await newSession(namespace);
      await append(sessionId, { items: [{ text: 'old' }] });
      const deleted = await ok('DELETE', `/v1/namespaces/${namespace}/sessions/${enc(externalId)}`);
      expect(deleted.destroyed).toEqual([sessionId]);
      expect((await call('GET', `/v1/namespaces/${namespace}/sessions/${enc(externalId)}`)).status).toBe(404);
      expect((await ok('GET', `/v1/namespaces/${namespace}/sessions?minPosition=${head}`)).sessions).toEqual([]);
      const again = await call('PUT', `/v1/namespaces/${namespace}/sessions/${enc(externalId)}`, {});
      expect(again.status).toBe(201);
      expect(again.body.sessionId).not.toBe(sessionId);
      expect(again.body.itemCount).toBe(0);
      // The deleted one's history stays readable for audit.
      expect(texts(await items(sessionId))).toEqual(['old']);
    });

    it('stores any object in order, answers the newest in chronological order, and pages before and after an item', async () => {
      const { sessionId } = await newSession();
      const written = await append(sessionId, {
        items: Array.from({ length: 10 }, (_, index) => ({ id: `m${index}`, text: `t${index}`, nested: { n: index } })),
      });
      expect(written.items.map((item: { id: string; index: number }) => [item.id, item.index])).toEqual(
        Array.from({ length: 10 }, (_, index) => [`m${index}`, index]),
      );
      expect(written.itemCount).toBe(10);
      const newest = await items(sessionId, '?limit=3');
      expect(newest.items).toEqual(
        [7, 8, 9].map((index) => ({ id: `m${index}`, index, item: { id: `m${index}`, text: `t${index}`, nested: { n: index } }, at: expect.any(String) })),
      );
      expect(newest.hasMore).toBe(true);
      expect(texts(await items(sessionId, '?limit=3&before=m7'))).toEqual(['t4', 't5', 't6']);
      expect(texts(await items(sessionId, '?limit=100&before=m2'))).toEqual(['t0', 't1']);
      expect((await items(sessionId, '?before=m0')).items).toEqual([]);
      const after = await items(sessionId, '?limit=2&after=m6');
      expect(texts(after)).toEqual(['t7', 't8']);
      expect(after.hasMore).toBe(true);
      expect((await call('GET', `/v1/sessions/${sessionId}/items?before=nope`)).body.error.code).toBe('ITEM_NOT_FOUND');
      expect(texts(await items(sessionId))).toEqual(Array.from({ length: 10 }, (_, index) => `t${index}`));
    });

    it('writes nothing for an item whose id the history holds: a retry, a re-import, an id given twice', async () => {
      const { sessionId } = await newSession();
      const entries = [
        { type: 'user', uuid: 'u-1', message: 'a' },
        { type: 'assistant', uuid: 'u-2', message: 'b' },
      ];
      const first = await append(sessionId, { items: entries, idField: 'uuid' });
      const again = await append(sessionId, { items: [...entries, { type: 'user', uuid: 'u-3' }, { type: 'user', uuid: 'u-3' }], idField: 'uuid' });
      expect(again.items).toEqual([
        { id: 'u-1', index: 0, appended: false },
        { id: 'u-2', index: 1, appended: false },
        { id: 'u-3', index: 2, appended: true },
        { id: 'u-3', index: 2, appended: true },
      ]);
      expect(again.revision).toBe(first.revision + 1);
      const retry = await append(sessionId, { items: entries, idField: 'uuid' });
      expect(retry.revision).toBe(again.revision);
      expect((await items(sessionId)).items.map((item: { id: string }) => item.id)).toEqual(['u-1', 'u-2', 'u-3']);
      // Without an id each item is new; with idField null, `id` is just data.
      await append(sessionId, { items: [{ id: 'u-1', text: 'plain' }], idField: null });
      expect((await items(sessionId)).itemCount).toBe(4);
      // Popped, an id may come back.
      await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      const back = await append(sessionId, { items: [{ type: 'user', uuid: 'u-3', again: true }], idField: 'uuid' });
      expect(back.items).toEqual([{ id: 'u-3', index: 2, appended: true }]);
      expect((await items(sessionId)).items.map((item: { item: object }) => item.item)).toEqual([
        entries[0],
        entries[1],
        { type: 'user', uuid: 'u-3', again: true },
      ]);
    });

    it('pops the last item and clears the history, visible to the very next read', async () => {
      const { sessionId } = await newSession();
      await append(sessionId, { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
      const popped = await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      expect(popped).toMatchObject({ item: { index: 2, item: { text: 'c' } }, itemCount: 2 });
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      await append(sessionId, { items: [{ text: 'd' }] });
      expect(texts(await items(sessionId))).toEqual(['a', 'b', 'd']);
      const cleared = await ok('DELETE', `/v1/sessions/${sessionId}/items`);
      expect(cleared).toMatchObject({ clearedCount: 3, itemCount: 0 });
      expect((await items(sessionId)).items).toEqual([]);
      expect((await ok('POST', `/v1/sessions/${sessionId}/items/pop`)).item).toBeNull();
      await append(sessionId, { items: [{ text: 'e' }] });
      expect(texts(await items(sessionId))).toEqual(['e']);
    });

    it('refuses an item that is not an object (400) or too large (413) and writes nothing of the request', async () => {
      const { sessionId } = await newSession();
      const before = await append(sessionId, { items: [{ text: 'kept' }] });
      for (const [body, status, code] of [
        [{ items: [{ text: 'ok' }, 'a string'] }, 400, 'ITEM_NOT_OBJECT'],
        [{ items: [{ text: 'ok' }, [1, 2]] }, 400, 'ITEM_NOT_OBJECT'],
        [{ items: [{ text: 'ok' }, { text: 'x'.repeat(3000) }] }, 413, 'ITEM_TOO_LARGE'],
        [{ items: Array.from({ length: 51 }, () => ({})) }, 413, 'TOO_MANY_ITEMS'],
        [{ items: [{ id: 7 }] }, 400, 'INVALID_ITEM_ID'],
        [{ items: [] }, 400, undefined],
      ] as const) {
        const refused = await call('POST', `/v1/sessions/${sessionId}/items`, body);
        expect(refused.status).toBe(status);
        if (code) expect(refused.body.error.code).toBe(code);
      }
      const after = await items(sessionId);
      expect(after).toMatchObject({ itemCount: 1, revision: before.revision });
      expect((await call('POST', `/v1/sessions/nobody/items`, { items: [{}] })).body.error.code).toBe('SESSION_NOT_FOUND');
    });

    it('orders concurrent appenders: every item once, each request contiguous, nothing interleaved half-written', async () => {
      const { sessionId } = await newSession();
      const writers = Array.from({ length: 6 }, (_, writer) =>
        (async () => {
          for (let batch = 0; batch < 4; batch++)
            await append(sessionId, { items: [0, 1, 2].map((part) => ({ id: `w${writer}-b${batch}-${part}`, writer, batch, part })) });
        })(),
      );
      await Promise.all(writers);
      const all = (await items(sessionId, '?limit=1000')).items as Array<{ id: string; index: number; item: { writer: number; batch: number; part: number } }>;
      expect(all).toHaveLength(72);
      expect(all.map((item) => item.index)).toEqual(Array.from({ length: 72 }, (_, index) => index));
      expect(new Set(all.map((item) => item.id)).size).toBe(72);
      for (let start = 0; start < 72; start += 3) {
        const group = all.slice(start, start + 3).map((item) => item.item);
        expect(group.map((item) => item.part)).toEqual([0, 1, 2]);
        expect(new Set(group.map((item) => `${item.writer}/${item.batch}`)).size).toBe(1);
      }
    });

    it('answers a retried pop or clear with the same Idempotency-Key as the first time, removing nothing more', async () => {
      const { sessionId } = await newSession();
      await append(sessionId, { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
      const key = { 'idempotency-key': `pop-${backend}-${counter}` };
      const first = await ok('POST', `/v1/sessions/${sessionId}/items/pop`, undefined, key);
      const second = await ok('POST', `/v1/sessions/${sessionId}/items/pop`, undefined, key);
      expect(second).toEqual(first);
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      const keyedAppend = { 'idempotency-key': `append-${backend}-${counter}` };
      const added = await append(sessionId, { items: [{ text: 'no id' }] }, keyedAppend);
      expect(await append(sessionId, { items: [{ text: 'no id' }] }, keyedAppend)).toEqual(added);
      expect(texts(await items(sessionId))).toEqual(['a', 'b', 'no id']);
    });

    it('rolls items back with a checkpoint, and a fork starts with the history it was forked from', async () => {
      const { sessionId } = await newSession();
      await append(sessionId, { items: [{ text: 'a' }, { text: 'b' }] });
      const checkpoint = await ok('POST', `/v1/sessions/${sessionId}/checkpoints`, { label: 'two items' });
      await append(sessionId, { items: [{ text: 'c' }] });
      await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      await append(sessionId, { items: [{ text: 'x' }, { text: 'y' }, { text: 'z' }] });
      expect(texts(await items(sessionId))).toEqual(['a', 'x', 'y', 'z']);
      const fork = await ok('POST', `/v1/sessions/${sessionId}/fork`, { checkpointId: checkpoint.checkpointId });
      await ok('POST', `/v1/sessions/${sessionId}/rollback`, { checkpointId: checkpoint.checkpointId });
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      expect((await items(sessionId)).itemCount).toBe(2);
      await append(sessionId, { items: [{ text: 'after rollback' }] });
      expect(texts(await items(sessionId))).toEqual(['a', 'b', 'after rollback']);
      expect(texts(await items(fork.sessionId))).toEqual(['a', 'b']);
      await append(fork.sessionId, { items: [{ id: 'f1', text: 'fork' }] });
      expect(texts(await items(fork.sessionId))).toEqual(['a', 'b', 'fork']);
      const older = await items(fork.sessionId, '?before=f1&limit=1');
      expect(texts(older)).toEqual(['b']);
      expect(texts(await items(fork.sessionId, `?before=${older.items[0].id}`))).toEqual(['a']);
    });

    it('reads the history as it was at any revision: before a pop, a clear and a rollback, by id too', async () => {
      const { sessionId } = await newSession();
      const two = await append(sessionId, {
        items: [
          { id: 'a', text: 'a' },
          { id: 'b', text: 'b' },
        ],
      });
      const checkpoint = await ok('POST', `/v1/sessions/${sessionId}/checkpoints`, { label: 'two items' });
      const three = await append(sessionId, { items: [{ id: 'c', text: 'c' }] });
      const popped = await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      await ok('DELETE', `/v1/sessions/${sessionId}/items`);
      // `b` again after the clear: its newest append is newer than the revisions read below.
      await append(sessionId, { items: [{ id: 'b', text: 'b again' }] });
      await ok('POST', `/v1/sessions/${sessionId}/rollback`, { checkpointId: checkpoint.checkpointId });

      const at = (revision: number, query = '') => items(sessionId, `?revision=${revision}${query ? `&${query}` : ''}`);
      const atThree = await at(three.revision);
      expect([texts(atThree), atThree.itemCount, atThree.revision]).toEqual([['a', 'b', 'c'], 3, three.revision]);
      expect(texts(await at(two.revision))).toEqual(['a', 'b']);
      expect(texts(await at(popped.revision))).toEqual(['a', 'b']);
      expect(texts(await at(popped.revision + 1))).toEqual([]);
      expect(texts(await at(popped.revision + 2))).toEqual(['b again']);
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      // Cursors by id read the history of that revision, not the newest append of the id.
      expect(texts(await at(three.revision, 'after=b'))).toEqual(['c']);
      expect(texts(await at(three.revision, 'before=b'))).toEqual(['a']);
      expect(texts(await at(three.revision, 'limit=1'))).toEqual(['c']);
      expect((await call('GET', `/v1/sessions/${sessionId}/items?revision=${two.revision - 2}&after=b`)).body.error.code).toBe('ITEM_NOT_FOUND');
      // A revision the stream does not have yet, and one that is not a number.
      const future = await call('GET', `/v1/sessions/${sessionId}/items?revision=100000`);
      expect([future.status, future.body.error.code]).toEqual([404, 'REVISION_NOT_FOUND']);
      const bad = await call('GET', `/v1/sessions/${sessionId}/items?revision=-1`);
      expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect((await call('GET', `/v1/sessions/ag_${'0'.repeat(32)}/items?revision=0`)).status).toBe(404);
    });

    it('finds an id a rollback restored although a newer append of it was removed', async () => {
      const { sessionId } = await newSession();
      await append(sessionId, { items: [{ id: 'x', text: 'first x' }] });
      const checkpoint = await ok('POST', `/v1/sessions/${sessionId}/checkpoints`, { label: 'x' });
      await ok('POST', `/v1/sessions/${sessionId}/items/pop`);
      await append(sessionId, {
        items: [
          { id: 'x', text: 'second x' },
          { id: 'y', text: 'y' },
        ],
      });
      await ok('POST', `/v1/sessions/${sessionId}/rollback`, { checkpointId: checkpoint.checkpointId });
      expect((await ok('GET', `/v1/sessions/${sessionId}/items/x`)).item.item).toEqual({ id: 'x', text: 'first x' });
      expect(texts(await items(sessionId, '?after=x'))).toEqual([]);
      expect((await call('GET', `/v1/sessions/${sessionId}/items/y`)).status).toBe(404);
      // The restored `x` is in the history, so appending `x` again writes nothing; nor does a fork's inherited one.
      expect((await append(sessionId, { items: [{ id: 'x', text: 'third x' }] })).items[0]).toMatchObject({ appended: false, index: 0 });
      const fork = await ok('POST', `/v1/sessions/${sessionId}/fork`, {});
      expect((await append(fork.sessionId, { items: [{ id: 'x', text: 'x in the fork' }] })).items[0]).toMatchObject({ appended: false, index: 0 });
      expect(texts(await items(fork.sessionId))).toEqual(['first x']);
    });

    it('erases items with the person: an erasure of the session key leaves no item content', async () => {
      const { externalId, sessionId } = await newSession('erase');
      await append(sessionId, { items: [{ id: 'secret-1', text: 'my card is 4111' }] });
      const erased = await service.request('POST', '/v1/admin/erase', {
        body: { sessionKey: `agent-session:erase:${externalId}` },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(erased.status, erased.text).toBeLessThan(300);
      const after = await items(sessionId);
      expect(after.itemCount).toBe(1);
      expect(after.items[0].item).toEqual({});
      expect(JSON.stringify(after)).not.toContain('4111');
      expect(JSON.stringify(after)).not.toContain('secret-1');
    });
  });
}
