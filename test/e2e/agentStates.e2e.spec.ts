// Key-value states over real HTTP: shared states by namespace and id, a session's own values, both changed atomically
// with an item append (all or nothing, If-Match judged on the session), retries that change nothing twice, erasure.
import { beforeAll, expect, it } from 'vitest';
import type { AppendItemsRequest, JsonObject, LedgerClient } from '../../src/client/index.js';
import { apiErrorOf, forEachBackend, refusalOf } from '../support/forEachBackend.js';

const ADMIN = 'states-admin-token';
const WRITER = 'states-writer-token';

forEachBackend(
  'key-value states',
  (ledger) => {
    /** Typed clients with the agent's and the operator's tokens; every call of theirs that is not refused succeeded. */
    let writer: LedgerClient;
    let admin: LedgerClient;
    let counter = 0;
    /** Raw, for bodies the typed client never sends. */
    const call = (method: string, path: string, body?: unknown) =>
      ledger.service.request(method, path, { body, headers: { authorization: `Bearer ${WRITER}` } });
    const newSession = async () => (await writer.putAgentSession('states', `s ${++counter}`, {})).sessionId;
    const shared = (stateId: string) => writer.getSharedState('states', stateId);
    const changeShared = (stateId: string, delta: JsonObject) => writer.changeSharedState('states', stateId, { delta });

    beforeAll(() => {
      writer = ledger.newClient({ token: WRITER });
      admin = ledger.newClient({ token: ADMIN });
    });

    it('reads a shared state nobody wrote as empty, and changes it key by key', async () => {
      expect(await shared('app:never')).toMatchObject({ namespace: 'states', stateId: 'app:never', state: {}, revision: -1, updatedAt: null });
      await changeShared('app:weather', { units: 'metric', count: 1 });
      const changed = await changeShared('app:weather', { count: 2, off: null, __proto__x: 1 });
      expect(changed).toMatchObject({ state: { units: 'metric', count: 2, off: null, __proto__x: 1 }, revision: 1 });
      expect((await shared('app:weather')).state).toEqual(changed.state);
      // An empty delta writes nothing.
      expect((await changeShared('app:weather', {})).revision).toBe(1);
      // Another namespace's state of the same id is another state.
      expect((await writer.getSharedState('other', 'app:weather')).state).toEqual({});
    });

    it('refuses bad input with a code, writing nothing', async () => {
      const path = `/v1/namespaces/states/states/bad`;
      expect((await call('PATCH', path, { delta: [1] })).body.error.code).toBe('VALIDATION_FAILED');
      expect((await call('PATCH', path, { delta: { a: 1 }, extra: true })).body.error.code).toBe('VALIDATION_FAILED');
      expect(await refusalOf(changeShared('bad', { big: 'x'.repeat(3000) }))).toEqual({ status: 413, code: 'STATE_DELTA_TOO_LARGE' });
      expect((await refusalOf(changeShared('a\u0001b', { a: 1 }))).code).toBe('INVALID_STATE_ID');
      expect((await refusalOf(writer.changeSharedState('bad ns', 'x', { delta: { a: 1 } }))).code).toBe('INVALID_NAMESPACE');
      expect((await shared('bad')).revision).toBe(-1);
      expect((await refusalOf(writer.getSessionValues(`ag_${'0'.repeat(32)}`))).code).toBe('SESSION_NOT_FOUND');
    });

    it("appends items with the session's values and shared states in one append, and a retry changes nothing twice", async () => {
      const sessionId = await newSession();
      const body: AppendItemsRequest = {
        items: [{ id: 'e1', text: 'hello' }],
        stateDelta: { topic: 'weather' },
        sharedStateDeltas: [
          { namespace: 'states', stateId: 'app:together', delta: { visits: 1 } },
          { namespace: 'states', stateId: 'user:together/u1', delta: { name: 'Alice' } },
        ],
      };
      const first = await writer.appendItems(sessionId, body);
      expect(first).toMatchObject({ items: [{ id: 'e1', appended: true }], itemCount: 1, revision: 1 });
      const values = await writer.getSessionValues(sessionId);
      expect(values).toMatchObject({ sessionId, state: { topic: 'weather' }, revision: 1, stateRevision: 0 });
      expect((await shared('app:together')).state).toEqual({ visits: 1 });
      expect((await shared('user:together/u1')).state).toEqual({ name: 'Alice' });
      // The same item again (a retry without a key): held already, so its deltas are not applied again.
      const again = await writer.appendItems(sessionId, { ...body, stateDelta: { topic: 'changed' } });
      expect(again.items[0]!.appended).toBe(false);
      expect((await writer.getSessionValues(sessionId)).state).toEqual({ topic: 'weather' });
      expect((await shared('app:together')).revision).toBe(0);
      // A keyed retry answers the first answer.
      const keyed = { items: [{ id: 'e2', text: 'two' }], sharedStateDeltas: [{ namespace: 'states', stateId: 'app:together', delta: { visits: 2 } }] };
      const idempotencyKey = `k-${ledger.backend}`;
      const answer = await writer.appendItems(sessionId, keyed, { idempotencyKey });
      expect(await writer.appendItems(sessionId, keyed, { idempotencyKey })).toEqual(answer);
      expect(await shared('app:together')).toMatchObject({ state: { visits: 2 }, revision: 1 });
    });

    it('writes nothing at all when the append is refused: a stale If-Match, an ended session, a bad delta', async () => {
      const sessionId = await newSession();
      await writer.appendItems(sessionId, { items: [{ id: 'a' }], stateDelta: { n: 1 } });
      const stale = await apiErrorOf(
        writer.appendItems(
          sessionId,
          { items: [{ id: 'b' }], stateDelta: { n: 2 }, sharedStateDeltas: [{ namespace: 'states', stateId: 'app:refused', delta: { x: 1 } }] },
          { ifMatch: 0 },
        ),
      );
      expect([stale.status, stale.code, (stale.details as { currentRevision: number }).currentRevision]).toEqual([412, 'PRECONDITION_FAILED', 1]);
      const bad = await refusalOf(
        writer.appendItems(sessionId, { items: [{ id: 'b' }], sharedStateDeltas: [{ namespace: 'states', stateId: '', delta: {} }] }),
      );
      expect(bad.code).toBe('INVALID_STATE_ID');
      expect((await writer.listItems(sessionId)).itemCount).toBe(1);
      expect((await writer.getSessionValues(sessionId)).state).toEqual({ n: 1 });
      expect((await shared('app:refused')).revision).toBe(-1);
      // At the right revision it goes ahead.
      await writer.appendItems(sessionId, { items: [{ id: 'b' }], stateDelta: { n: 2 } }, { ifMatch: 1 });
      expect((await writer.getSessionValues(sessionId)).state).toEqual({ n: 2 });
      // PATCH of the values is a session write: fenced, and refused once the session is deleted.
      expect((await refusalOf(writer.changeSessionValues(sessionId, { delta: { n: 3 } }, { ifMatch: 1 }))).status).toBe(412);
      expect((await writer.changeSessionValues(sessionId, { delta: { n: 3 } }, { ifMatch: 2 })).state).toEqual({ n: 3 });
      await writer.destroySession(sessionId);
      expect((await refusalOf(writer.changeSessionValues(sessionId, { delta: { n: 4 } }))).code).toBe('SESSION_DESTROYED');
    });

    it('orders concurrent appenders: every delta lands once, none lost', async () => {
      const sessions = await Promise.all([newSession(), newSession(), newSession()]);
      await Promise.all(
        sessions.flatMap((sessionId, s) =>
          Array.from({ length: 4 }, (_, n) =>
            writer.appendItems(sessionId, {
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
      await changeShared('user:app/alice', { phone: '+44 1234' });
      await admin.eraseConversation({ sessionKey: 'agent-state:states:user:app/alice' });
      expect((await shared('user:app/alice')).state).toEqual({});
      const events = await admin.listStreams({ limit: 1000 });
      expect(JSON.stringify(events)).not.toContain('alice');

      const externalId = `erased ${ledger.backend}`;
      const { sessionId } = await writer.putAgentSession('states', externalId, {});
      await writer.appendItems(sessionId, { items: [{ id: 'x', text: 'secret' }], stateDelta: { address: '1 Main St' } });
      await admin.eraseConversation({ sessionKey: `agent-session:states:${externalId}` });
      expect((await writer.getSessionValues(sessionId)).state).toEqual({});
      // Erasing the key again finds the state (its stream is named by a digest, never renamed) and has nothing left to rewrite.
      expect((await admin.eraseConversation({ sessionKey: 'agent-state:states:user:app/alice' })).eventsRewritten).toBe(0);
    });
  },
  { env: { API_TOKEN: `ops:admin=${ADMIN},agent:write=${WRITER}`, MAX_MESSAGE_BYTES: '2000' } },
);
