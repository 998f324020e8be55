// Key-value states over real HTTP: shared states by namespace and id, a session's own values, both changed atomically
// with an item append (all or nothing, If-Match judged on the session), retries that change nothing twice, erasure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const ADMIN = 'states-admin-token';
const WRITER = 'states-writer-token';
const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`key-value states: ${backend}`, () => {
    let service: TestApp;
    let counter = 0;
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      service.request(method, path, { body, headers: { authorization: `Bearer ${WRITER}`, ...headers } });
    const ok = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await call(method, path, body, headers);
      expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
      return response.body;
    };
    const newSession = async () => (await ok('PUT', `/v1/namespaces/states/sessions/${enc(`s ${++counter}`)}`, {})).sessionId as string;
    const shared = (stateId: string) => ok('GET', `/v1/namespaces/states/states/${enc(stateId)}`);

    beforeAll(async () => {
      service = await startTestApp(backend, { env: { API_TOKEN: `ops:admin=${ADMIN},agent:write=${WRITER}`, MAX_MESSAGE_BYTES: '2000' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('reads a shared state nobody wrote as empty, and changes it key by key', async () => {
      expect(await shared('app:never')).toMatchObject({ namespace: 'states', stateId: 'app:never', state: {}, revision: -1, updatedAt: null });
      await ok('PATCH', `/v1/namespaces/states/states/${enc('app:weather')}`, { delta: { units: 'metric', count: 1 } });
      const changed = await ok('PATCH', `/v1/namespaces/states/states/${enc('app:weather')}`, { delta: { count: 2, off: null, __proto__x: 1 } });
      expect(changed).toMatchObject({ state: { units: 'metric', count: 2, off: null, __proto__x: 1 }, revision: 1 });
      expect((await shared('app:weather')).state).toEqual(changed.state);
      // An empty delta writes nothing.
      expect((await ok('PATCH', `/v1/namespaces/states/states/${enc('app:weather')}`, { delta: {} })).revision).toBe(1);
      // Another namespace's state of the same id is another state.
      expect((await ok('GET', `/v1/namespaces/other/states/${enc('app:weather')}`)).state).toEqual({});
    });

    it('refuses bad input with a code, writing nothing', async () => {
      const path = `/v1/namespaces/states/states/bad`;
      expect((await call('PATCH', path, { delta: [1] })).body.error.code).toBe('VALIDATION_FAILED');
      expect((await call('PATCH', path, { delta: { a: 1 }, extra: true })).body.error.code).toBe('VALIDATION_FAILED');
      const large = await call('PATCH', path, { delta: { big: 'x'.repeat(3000) } });
      expect([large.status, large.body.error.code]).toEqual([413, 'STATE_DELTA_TOO_LARGE']);
      expect((await call('PATCH', `/v1/namespaces/states/states/${enc('a\u0001b')}`, { delta: { a: 1 } })).body.error.code).toBe('INVALID_STATE_ID');
      expect((await call('PATCH', `/v1/namespaces/${enc('bad ns')}/states/x`, { delta: { a: 1 } })).body.error.code).toBe('INVALID_NAMESPACE');
      expect((await shared('bad')).revision).toBe(-1);
      expect((await call('GET', `/v1/sessions/ag_${'0'.repeat(32)}/values`)).body.error.code).toBe('SESSION_NOT_FOUND');
    });

    it("appends items with the session's values and shared states in one append, and a retry changes nothing twice", async () => {
      const sessionId = await newSession();
      const body = {
        items: [{ id: 'e1', text: 'hello' }],
        stateDelta: { topic: 'weather' },
        sharedStateDeltas: [
          { namespace: 'states', stateId: 'app:together', delta: { visits: 1 } },
          { namespace: 'states', stateId: 'user:together/u1', delta: { name: 'Alice' } },
        ],
      };
      const first = await ok('POST', `/v1/sessions/${sessionId}/items`, body);
      expect(first).toMatchObject({ items: [{ id: 'e1', appended: true }], itemCount: 1, revision: 1 });
      const values = await ok('GET', `/v1/sessions/${sessionId}/values`);
      expect(values).toMatchObject({ sessionId, state: { topic: 'weather' }, revision: 1, stateRevision: 0 });
      expect((await shared('app:together')).state).toEqual({ visits: 1 });
      expect((await shared('user:together/u1')).state).toEqual({ name: 'Alice' });
      // The same item again (a retry without a key): held already, so its deltas are not applied again.
      const again = await ok('POST', `/v1/sessions/${sessionId}/items`, { ...body, stateDelta: { topic: 'changed' } });
      expect(again.items[0].appended).toBe(false);
      expect((await ok('GET', `/v1/sessions/${sessionId}/values`)).state).toEqual({ topic: 'weather' });
      expect((await shared('app:together')).revision).toBe(0);
      // A keyed retry answers the first answer.
      const keyed = { items: [{ id: 'e2', text: 'two' }], sharedStateDeltas: [{ namespace: 'states', stateId: 'app:together', delta: { visits: 2 } }] };
      const answer = await ok('POST', `/v1/sessions/${sessionId}/items`, keyed, { 'idempotency-key': `k-${backend}` });
      expect(await ok('POST', `/v1/sessions/${sessionId}/items`, keyed, { 'idempotency-key': `k-${backend}` })).toEqual(answer);
      expect(await shared('app:together')).toMatchObject({ state: { visits: 2 }, revision: 1 });
    });

    it('writes nothing at all when the append is refused: a stale If-Match, an ended session, a bad delta', async () => {
      const sessionId = await newSession();
      await ok('POST', `/v1/sessions/${sessionId}/items`, { items: [{ id: 'a' }], stateDelta: { n: 1 } });
      const stale = await call(
        'POST',
        `/v1/sessions/${sessionId}/items`,
        { items: [{ id: 'b' }], stateDelta: { n: 2 }, sharedStateDeltas: [{ namespace: 'states', stateId: 'app:refused', delta: { x: 1 } }] },
        { 'if-match': '"0"' },
      );
      expect([stale.status, stale.body.error.code, stale.body.error.details.currentRevision]).toEqual([412, 'PRECONDITION_FAILED', 1]);
      const bad = await call('POST', `/v1/sessions/${sessionId}/items`, {
        items: [{ id: 'b' }],
        sharedStateDeltas: [{ namespace: 'states', stateId: '', delta: {} }],
      });
      expect(bad.body.error.code).toBe('INVALID_STATE_ID');
      expect((await ok('GET', `/v1/sessions/${sessionId}/items`)).itemCount).toBe(1);
      expect((await ok('GET', `/v1/sessions/${sessionId}/values`)).state).toEqual({ n: 1 });
      expect((await shared('app:refused')).revision).toBe(-1);
      // At the right revision it goes ahead.
      await ok('POST', `/v1/sessions/${sessionId}/items`, { items: [{ id: 'b' }], stateDelta: { n: 2 } }, { 'if-match': '"1"' });
      expect((await ok('GET', `/v1/sessions/${sessionId}/values`)).state).toEqual({ n: 2 });
      // PATCH of the values is a session write: fenced, and refused once the session is deleted.
      expect((await call('PATCH', `/v1/sessions/${sessionId}/values`, { delta: { n: 3 } }, { 'if-match': '"1"' })).status).toBe(412);
      expect((await ok('PATCH', `/v1/sessions/${sessionId}/values`, { delta: { n: 3 } }, { 'if-match': '"2"' })).state).toEqual({ n: 3 });
      await ok('DELETE', `/v1/sessions/${sessionId}`);
      expect((await call('PATCH', `/v1/sessions/${sessionId}/values`, { delta: { n: 4 } })).body.error.code).toBe('SESSION_DESTROYED');
    });

    it('orders concurrent appenders: every delta lands once, none lost', async () => {
      const sessions = await Promise.all([newSession(), newSession(), newSession()]);
      await Promise.all(
        sessions.flatMap((sessionId, s) =>
          Array.from({ length: 4 }, (_, n) =>
            ok('POST', `/v1/sessions/${sessionId}/items`, {
              items: [{ id: `c${n}` }],
              sharedStateDeltas: [{ namespace: 'states', stateId: 'app:counted', delta: { [`s${s}n${n}`]: true } }],
            }),
          ),
        ),
      );
      const counted = await shared('app:counted');
      expect(Object.keys(counted.state)).toHaveLength(12);
      expect(counted.revision).toBe(11);
    });

    it("erases a shared state by its key, and a session's values with the session", async () => {
      const admin = { authorization: `Bearer ${ADMIN}` };
      await ok('PATCH', `/v1/namespaces/states/states/${enc('user:app/alice')}`, { delta: { phone: '+44 1234' } });
      const erased = await call('POST', '/v1/admin/erase', { sessionKey: 'agent-state:states:user:app/alice' }, admin);
      expect(erased.status, erased.text).toBe(200);
      expect((await shared('user:app/alice')).state).toEqual({});
      const events = await ok('GET', `/v1/admin/streams?limit=1000`, undefined, admin);
      expect(JSON.stringify(events)).not.toContain('alice');

      const externalId = `erased ${backend}`;
      const { sessionId } = await ok('PUT', `/v1/namespaces/states/sessions/${enc(externalId)}`, {});
      await ok('POST', `/v1/sessions/${sessionId}/items`, { items: [{ id: 'x', text: 'secret' }], stateDelta: { address: '1 Main St' } });
      expect((await call('POST', '/v1/admin/erase', { sessionKey: `agent-session:states:${externalId}` }, admin)).status).toBe(200);
      expect((await ok('GET', `/v1/sessions/${sessionId}/values`)).state).toEqual({});
      // Erasing the key again finds the state (its stream is named by a digest, never renamed) and has nothing left to rewrite.
      expect((await call('POST', '/v1/admin/erase', { sessionKey: 'agent-state:states:user:app/alice' }, admin)).body.eventsRewritten).toBe(0);
    });
  });
}
