// Sessions named by external ids and item histories over real HTTP: create-or-get (raced), look-up, listing, delete,
// append with ids, newest-first reads and cursors, pop, clear, limits, concurrent appenders, rollback, fork, erasure.
import { beforeAll, expect, it } from 'vitest';
import type { AgentSessionRequest, AppendItemsRequest, ItemsQuery, LedgerClient } from '../../src/client/index.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';

const ADMIN = 'agent-admin-token';
const WRITER = 'agent-writer-token';
forEachBackend(
  'agent sessions and item histories',
  (ledger) => {
    /** Typed clients with the agent's and the operator's tokens; the agent's reads wait for its own writes (X-Min-Position). */
    let writer: LedgerClient;
    let admin: LedgerClient;
    let counter = 0;
    /** Raw, for bodies the typed client never sends. */
    const call = (method: string, path: string, body?: unknown) =>
      ledger.service.request(method, path, { body, headers: { authorization: `Bearer ${WRITER}` } });
    const newSession = async (namespace = 'tests', extra: AgentSessionRequest = {}) => {
      const externalId = `conv ${ledger.backend} ${++counter}/é`;
      const { sessionId } = await writer.putAgentSession(namespace, externalId, extra);
      return { externalId, sessionId };
    };
    const items = (sessionId: string, query: ItemsQuery = {}) => writer.listItems(sessionId, query);
    const append = (sessionId: string, body: AppendItemsRequest, idempotencyKey?: string) =>
      writer.appendItems(sessionId, body, idempotencyKey ? { idempotencyKey } : {});
    const texts = (page: { items: Array<{ item: { text?: unknown } }> }) => page.items.map((entry) => entry.item.text);
    const ids = (page: { sessions: Array<{ sessionId: string }> }) => page.sessions.map((session) => session.sessionId);

    beforeAll(() => {
      writer = ledger.newClient({ token: WRITER });
      admin = ledger.newClient({ token: ADMIN });
    });

    it('creates a session by its external id once, however many ask at the same time, and finds it again', async () => {
      const externalId = `raced ${ledger.backend}`;
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => writer.putAgentSession('race', externalId, { agentName: 'planner', metadata: { team: 'a' } })),
      );
      // All twelve succeed: one created it (201), eleven found it (200).
      expect(answers.map((answer) => answer.created).sort()).toEqual([...Array<boolean>(11).fill(false), true]);
      const sessionIds = new Set(answers.map((answer) => answer.sessionId));
      expect(sessionIds.size).toBe(1);
      const found = await writer.getAgentSession('race', externalId);
      expect(found).toMatchObject({ namespace: 'race', externalId, agentName: 'planner', metadata: { team: 'a' }, status: 'active', itemCount: 0 });
      expect(found.sessionId).toBe([...sessionIds][0]);
      // A real ledger session: the session routes know it.
      expect(await writer.getSession(found.sessionId)).toMatchObject({ agentName: 'planner' });
      // Same id in another namespace: another session.
      const other = await writer.putAgentSession('race-2', externalId, {});
      expect(other.created).toBe(true);
      expect(other.sessionId).not.toBe(found.sessionId);
      expect((await refusalOf(writer.getAgentSession('race', 'nobody'))).code).toBe('SESSION_NOT_FOUND');
      expect((await refusalOf(writer.putAgentSession('bad ns', 'x', {}))).code).toBe('INVALID_NAMESPACE');
    });

    it("lists a namespace's sessions newest first, a page at a time, filtered by change time and metadata", async () => {
      const namespace = `list-${ledger.backend}`;
      const made: string[] = [];
      for (let index = 0; index < 5; index++) made.push((await newSession(namespace, { metadata: { tier: index % 2 === 0 ? 'gold' : 'free' } })).sessionId);
      // Items are activity: the oldest session becomes the newest.
      await append(made[0]!, { items: [{ text: 'hi' }] });
      const listed = (query: Parameters<LedgerClient['listAgentSessions']>[1]) => writer.listAgentSessions(namespace, query);
      const first = await listed({ limit: 2 });
      expect(ids(first)).toEqual([made[0], made[4]]);
      expect(first.sessions[0]).toMatchObject({ namespace, itemCount: 1, status: 'active' });
      const second = await listed({ limit: 10, cursor: first.nextCursor! });
      expect(ids(second)).toEqual([made[3], made[2], made[1]]);
      expect(second.nextCursor).toBeNull();
      const gold = await listed({ metadata: JSON.stringify({ tier: 'gold' }) });
      expect(ids(gold).sort()).toEqual([made[0], made[2], made[4]].sort());
      const since = first.sessions[0]!.updatedAt;
      expect(ids(await listed({ updatedAfter: since }))).toEqual([made[0]]);
      expect((await listed({ updatedBefore: since })).sessions).toHaveLength(4);
      expect((await refusalOf(listed({ metadata: 'nope' }))).code).toBe('INVALID_METADATA_FILTER');
    });

    it('deletes a session: it is gone from look-ups and listings, and the same id starts a new one', async () => {
      const namespace = `delete-${ledger.backend}`;
      const { externalId, sessionId } = await newSession(namespace);
      await append(sessionId, { items: [{ text: 'old' }] });
      const deleted = await writer.deleteAgentSession(namespace, externalId);
      expect(deleted.destroyed).toEqual([sessionId]);
      expect((await refusalOf(writer.getAgentSession(namespace, externalId))).status).toBe(404);
      expect((await writer.listAgentSessions(namespace)).sessions).toEqual([]);
      const again = await writer.putAgentSession(namespace, externalId, {});
      expect(again.created).toBe(true);
      expect(again.sessionId).not.toBe(sessionId);
      expect(again.itemCount).toBe(0);
      // The deleted one's history stays readable for audit.
      expect(texts(await items(sessionId))).toEqual(['old']);
    });

    it('stores any object in order, answers the newest in chronological order, and pages before and after an item', async () => {
      const { sessionId } = await newSession();
      const written = await append(sessionId, {
        items: Array.from({ length: 10 }, (_, index) => ({ id: `m${index}`, text: `t${index}`, nested: { n: index } })),
      });
      expect(written.items.map((item) => [item.id, item.index])).toEqual(Array.from({ length: 10 }, (_, index) => [`m${index}`, index]));
      expect(written.itemCount).toBe(10);
      const newest = await items(sessionId, { limit: 3 });
      expect(newest.items).toEqual(
        [7, 8, 9].map((index) => ({ id: `m${index}`, index, item: { id: `m${index}`, text: `t${index}`, nested: { n: index } }, at: expect.any(String) })),
      );
      expect(newest.hasMore).toBe(true);
      expect(texts(await items(sessionId, { limit: 3, before: 'm7' }))).toEqual(['t4', 't5', 't6']);
      expect(texts(await items(sessionId, { limit: 100, before: 'm2' }))).toEqual(['t0', 't1']);
      expect((await items(sessionId, { before: 'm0' })).items).toEqual([]);
      const after = await items(sessionId, { limit: 2, after: 'm6' });
      expect(texts(after)).toEqual(['t7', 't8']);
      expect(after.hasMore).toBe(true);
      expect((await refusalOf(items(sessionId, { before: 'nope' }))).code).toBe('ITEM_NOT_FOUND');
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
      expect((await items(sessionId)).items.map((item) => item.id)).toEqual(['u-1', 'u-2', 'u-3']);
      // Without an id each item is new; with idField null, `id` is just data.
      await append(sessionId, { items: [{ id: 'u-1', text: 'plain' }], idField: null });
      expect((await items(sessionId)).itemCount).toBe(4);
      // Popped, an id may come back.
      await writer.popItem(sessionId);
      await writer.popItem(sessionId);
      const back = await append(sessionId, { items: [{ type: 'user', uuid: 'u-3', again: true }], idField: 'uuid' });
      expect(back.items).toEqual([{ id: 'u-3', index: 2, appended: true }]);
      expect((await items(sessionId)).items.map((item) => item.item)).toEqual([entries[0], entries[1], { type: 'user', uuid: 'u-3', again: true }]);
    });

    it('pops the last item and clears the history, visible to the very next read', async () => {
      const { sessionId } = await newSession();
      await append(sessionId, { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
      const popped = await writer.popItem(sessionId);
      expect(popped).toMatchObject({ item: { index: 2, item: { text: 'c' } }, itemCount: 2 });
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      await append(sessionId, { items: [{ text: 'd' }] });
      expect(texts(await items(sessionId))).toEqual(['a', 'b', 'd']);
      const cleared = await writer.clearItems(sessionId);
      expect(cleared).toMatchObject({ clearedCount: 3, itemCount: 0 });
      expect((await items(sessionId)).items).toEqual([]);
      expect((await writer.popItem(sessionId)).item).toBeNull();
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
      expect((await refusalOf(writer.appendItems('nobody', { items: [{}] }))).code).toBe('SESSION_NOT_FOUND');
    });

    it('orders concurrent appenders: every item once, each request contiguous, nothing interleaved half-written', async () => {
      const { sessionId } = await newSession();
      const writers = Array.from({ length: 6 }, (_, appender) =>
        (async () => {
          for (let batch = 0; batch < 4; batch++)
            await append(sessionId, { items: [0, 1, 2].map((part) => ({ id: `w${appender}-b${batch}-${part}`, writer: appender, batch, part })) });
        })(),
      );
      await Promise.all(writers);
      const all = (await items(sessionId, { limit: 1000 })).items as unknown as Array<{
        id: string;
        index: number;
        item: { writer: number; batch: number; part: number };
      }>;
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
      const key = { idempotencyKey: `pop-${ledger.backend}-${counter}` };
      const first = await writer.popItem(sessionId, key);
      const second = await writer.popItem(sessionId, key);
      expect(second).toEqual(first);
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      const keyedAppend = `append-${ledger.backend}-${counter}`;
      const added = await append(sessionId, { items: [{ text: 'no id' }] }, keyedAppend);
      expect(await append(sessionId, { items: [{ text: 'no id' }] }, keyedAppend)).toEqual(added);
      expect(texts(await items(sessionId))).toEqual(['a', 'b', 'no id']);
    });

    it('rolls items back with a checkpoint, and a fork starts with the history it was forked from', async () => {
      const { sessionId } = await newSession();
      await append(sessionId, { items: [{ text: 'a' }, { text: 'b' }] });
      const checkpoint = await writer.createCheckpoint(sessionId, { label: 'two items' });
      await append(sessionId, { items: [{ text: 'c' }] });
      await writer.popItem(sessionId);
      await writer.popItem(sessionId);
      await append(sessionId, { items: [{ text: 'x' }, { text: 'y' }, { text: 'z' }] });
      expect(texts(await items(sessionId))).toEqual(['a', 'x', 'y', 'z']);
      const fork = await writer.forkSession(sessionId, { checkpointId: checkpoint.checkpointId });
      await writer.rollback(sessionId, checkpoint.checkpointId);
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      expect((await items(sessionId)).itemCount).toBe(2);
      await append(sessionId, { items: [{ text: 'after rollback' }] });
      expect(texts(await items(sessionId))).toEqual(['a', 'b', 'after rollback']);
      expect(texts(await items(fork.sessionId))).toEqual(['a', 'b']);
      await append(fork.sessionId, { items: [{ id: 'f1', text: 'fork' }] });
      expect(texts(await items(fork.sessionId))).toEqual(['a', 'b', 'fork']);
      const older = await items(fork.sessionId, { before: 'f1', limit: 1 });
      expect(texts(older)).toEqual(['b']);
      expect(texts(await items(fork.sessionId, { before: older.items[0]!.id! }))).toEqual(['a']);
    });

    it('reads the history as it was at any revision: before a pop, a clear and a rollback, by id too', async () => {
      const { sessionId } = await newSession();
      const two = await append(sessionId, {
        items: [
          { id: 'a', text: 'a' },
          { id: 'b', text: 'b' },
        ],
      });
      const checkpoint = await writer.createCheckpoint(sessionId, { label: 'two items' });
      const three = await append(sessionId, { items: [{ id: 'c', text: 'c' }] });
      const popped = await writer.popItem(sessionId);
      await writer.clearItems(sessionId);
      // `b` again after the clear: its newest append is newer than the revisions read below.
      await append(sessionId, { items: [{ id: 'b', text: 'b again' }] });
      await writer.rollback(sessionId, checkpoint.checkpointId);

      const at = (revision: number, query: ItemsQuery = {}) => items(sessionId, { revision, ...query });
      const atThree = await at(three.revision);
      expect([texts(atThree), atThree.itemCount, atThree.revision]).toEqual([['a', 'b', 'c'], 3, three.revision]);
      expect(texts(await at(two.revision))).toEqual(['a', 'b']);
      expect(texts(await at(popped.revision))).toEqual(['a', 'b']);
      expect(texts(await at(popped.revision + 1))).toEqual([]);
      expect(texts(await at(popped.revision + 2))).toEqual(['b again']);
      expect(texts(await items(sessionId))).toEqual(['a', 'b']);
      // Cursors by id read the history of that revision, not the newest append of the id.
      expect(texts(await at(three.revision, { after: 'b' }))).toEqual(['c']);
      expect(texts(await at(three.revision, { before: 'b' }))).toEqual(['a']);
      expect(texts(await at(three.revision, { limit: 1 }))).toEqual(['c']);
      expect((await refusalOf(at(two.revision - 2, { after: 'b' }))).code).toBe('ITEM_NOT_FOUND');
      // A revision the stream does not have yet, and one that is not a number.
      expect(await refusalOf(at(100000))).toEqual({ status: 404, code: 'REVISION_NOT_FOUND' });
      expect(await refusalOf(at(-1))).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect((await refusalOf(writer.listItems(`ag_${'0'.repeat(32)}`, { revision: 0 }))).status).toBe(404);
    });

    it('finds an id a rollback restored although a newer append of it was removed', async () => {
      const { sessionId } = await newSession();
      await append(sessionId, { items: [{ id: 'x', text: 'first x' }] });
      const checkpoint = await writer.createCheckpoint(sessionId, { label: 'x' });
      await writer.popItem(sessionId);
      await append(sessionId, {
        items: [
          { id: 'x', text: 'second x' },
          { id: 'y', text: 'y' },
        ],
      });
      await writer.rollback(sessionId, checkpoint.checkpointId);
      expect((await writer.getItem(sessionId, 'x')).item.item).toEqual({ id: 'x', text: 'first x' });
      expect(texts(await items(sessionId, { after: 'x' }))).toEqual([]);
      expect((await refusalOf(writer.getItem(sessionId, 'y'))).status).toBe(404);
      // The restored `x` is in the history, so appending `x` again writes nothing; nor does a fork's inherited one.
      expect((await append(sessionId, { items: [{ id: 'x', text: 'third x' }] })).items[0]).toMatchObject({ appended: false, index: 0 });
      const fork = await writer.forkSession(sessionId, {});
      expect((await append(fork.sessionId, { items: [{ id: 'x', text: 'x in the fork' }] })).items[0]).toMatchObject({ appended: false, index: 0 });
      expect(texts(await items(fork.sessionId))).toEqual(['first x']);
    });

    it('erases items with the person: an erasure of the session key leaves no item content', async () => {
      const { externalId, sessionId } = await newSession('erase');
      await append(sessionId, { items: [{ id: 'secret-1', text: 'my card is 4111' }] });
      await admin.eraseConversation({ sessionKey: `agent-session:erase:${externalId}` });
      const after = await items(sessionId);
      expect(after.itemCount).toBe(1);
      expect(after.items[0]!.item).toEqual({});
      expect(JSON.stringify(after)).not.toContain('4111');
      expect(JSON.stringify(after)).not.toContain('secret-1');
    });
  },
  { env: { API_TOKEN: `ops:admin=${ADMIN},agent:write=${WRITER}`, READ_WAIT_TIMEOUT_MS: '5000', MAX_MESSAGE_BYTES: '2000', MAX_MESSAGES_PER_TURN: '50' } },
);
