// Session trees over real HTTP: children, forks, parent/children/tree reads, destroy, cascade, orphans, and a rebuild of the tree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`session trees: ${backend}`, () => {
    let service: TestApp;
    let chat = 0;
    /** The highest position any command answered: reads pass it as ?minPosition= to read their writes. */
    let head = 0;
    const post = async (path: string, body: object = {}) => {
      const response = await service.request('POST', path, { body });
      head = Math.max(head, response.body?.position ?? 0);
      return response;
    };
    const destroy = async (sessionId: string, cascade = false) => {
      const response = await service.request('DELETE', `/v1/sessions/${sessionId}${cascade ? '?cascade=true' : ''}`);
      head = Math.max(head, response.body?.position ?? 0);
      return response;
    };
    const read = (path: string) => service.request('GET', `${path}${path.includes('?') ? '&' : '?'}minPosition=${head}`);
    const newRoot = async () =>
      (await post('/v1/sessions/resolve', { source: { platform: 'slack', chatType: 'dm', chatId: `tree-${backend}-${++chat}` } })).body as {
        sessionId: string;
        sessionKey: string;
      };
    const child = async (parentId: string, agentName = 'worker') =>
      (await post(`/v1/sessions/${parentId}/children`, { agentName, metadata: { task: agentName } })).body.sessionId as string;
    const userTurn = (sessionId: string, text: string) =>
      post(`/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: text }], usage: { inputTokens: 3 } });
    const ids = (nodes: Array<{ sessionId: string }>) => nodes.map((node) => node.sessionId);

    beforeAll(async () => {
      service = await startTestApp(backend, { env: { READ_WAIT_TIMEOUT_MS: '5000' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it("creates children with the parent's origin and serves children, parent and the subtree with depths", async () => {
      const root = await newRoot();
      const created = await post(`/v1/sessions/${root.sessionId}/children`, { agentName: 'researcher', metadata: { goal: 'find cats' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ parentSessionId: root.sessionId, kind: 'child', agentName: 'researcher' });
      const first = created.body.sessionId as string;
      const second = await child(root.sessionId, 'writer');
      const grandchild = await child(first, 'helper');

      const session = await service.request('GET', `/v1/sessions/${first}`);
      expect(session.body).toMatchObject({
        status: 'active',
        sessionKey: root.sessionKey,
        parentSessionId: root.sessionId,
        agentName: 'researcher',
        metadata: { goal: 'find cats' },
        turnCount: 0,
      });
      expect((await service.request('GET', `/v1/sessions/${root.sessionId}`)).body.origin).toEqual(session.body.origin);
      // A child's turns are its own; they do not end it as "superseded" by its conversation's session.
      expect((await userTurn(first, 'working')).status).toBe(201);

      const children = await read(`/v1/sessions/${root.sessionId}/children`);
      expect(children.status).toBe(200);
      expect(ids(children.body.children)).toEqual([first, second]);
      expect(children.body.children[0]).toMatchObject({ parentSessionId: root.sessionId, depth: 1, kind: 'child', agentName: 'researcher' });
      const firstPage = await read(`/v1/sessions/${root.sessionId}/children?limit=1`);
      const secondPage = await read(`/v1/sessions/${root.sessionId}/children?limit=1&cursor=${firstPage.body.nextCursor}`);
      expect([...ids(firstPage.body.children), ...ids(secondPage.body.children)]).toEqual([first, second]);
      expect(secondPage.body.nextCursor).toBeNull();

      expect((await read(`/v1/sessions/${grandchild}/parent`)).body).toMatchObject({ parent: { sessionId: first, depth: 1 }, orphaned: false });
      expect((await read(`/v1/sessions/${root.sessionId}/parent`)).body).toMatchObject({ parent: null, orphaned: false });

      const tree = await read(`/v1/sessions/${root.sessionId}/tree`);
      // Depth-first by path: siblings in id order, each followed by its own subtree.
      const firstBranch = [
        [first, 1],
        [grandchild, 2],
      ];
      const branches = first < second ? [...firstBranch, [second, 1]] : [[second, 1], ...firstBranch];
      expect(tree.body.nodes.map((node: { sessionId: string; depth: number }) => [node.sessionId, node.depth])).toEqual([[root.sessionId, 0], ...branches]);
      const subtree = await read(`/v1/sessions/${first}/tree`);
      expect(subtree.body).toMatchObject({ rootSessionId: root.sessionId, depth: 1 });
      expect(subtree.body.nodes.map((node: { sessionId: string; depth: number }) => [node.sessionId, node.depth])).toEqual([
        [first, 0],
        [grandchild, 1],
      ]);
      const shallow = await read(`/v1/sessions/${root.sessionId}/tree?maxDepth=1`);
      expect(ids(shallow.body.nodes)).not.toContain(grandchild);
      const pages: string[] = [];
      for (let cursor: string | null = null, round = 0; round === 0 || cursor; round++) {
        const page: { body: { nodes: Array<{ sessionId: string }>; nextCursor: string | null } } = await read(
          `/v1/sessions/${root.sessionId}/tree?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        pages.push(...ids(page.body.nodes));
        cursor = page.body.nextCursor;
      }
      expect(pages).toEqual(ids(tree.body.nodes));
      expect((await read('/v1/sessions/20260101_000000_deadbeef/tree')).status).toBe(404);
      expect((await post(`/v1/sessions/${root.sessionId}/children`, { agentName: 'bad name!' })).status).toBe(400);
    });

    it('refuses a forged page cursor holding a NUL with 400 INVALID_CURSOR, in children and subtree listings', async () => {
      const root = await newRoot();
      await child(root.sessionId);
      await child(root.sessionId);
      for (const listing of ['children', 'tree']) {
        const page = await read(`/v1/sessions/${root.sessionId}/${listing}?limit=1`);
        const parts = JSON.parse(Buffer.from(page.body.nextCursor as string, 'base64url').toString('utf8')) as string[];
        const forged = Buffer.from(JSON.stringify(parts.map((part) => `${part}\u0000`))).toString('base64url');
        const answer = await read(`/v1/sessions/${root.sessionId}/${listing}?cursor=${forged}`);
        expect([answer.status, answer.body.error?.code], `${listing}: ${answer.text}`).toEqual([400, 'INVALID_CURSOR']);
      }
    });

    it('forks at a checkpoint or now into a self-contained child that outlives its parent', async () => {
      const root = await newRoot();
      const parent = await child(root.sessionId, 'planner');
      expect((await userTurn(parent, 'one')).status).toBe(201);
      await service.request('PUT', `/v1/sessions/${parent}/memory/plan`, { body: { value: ['a', 'b'] } });
      const checkpoint = await post(`/v1/sessions/${parent}/checkpoints`, { label: 'plan made' });
      const atCheckpoint = (await service.request('GET', `/v1/sessions/${parent}/state`)).body.state;
      await userTurn(parent, 'two');

      const forked = await post(`/v1/sessions/${parent}/fork`, { checkpointId: checkpoint.body.checkpointId, agentName: 'alternative' });
      expect(forked.status).toBe(201);
      expect(forked.body).toMatchObject({
        parentSessionId: parent,
        kind: 'fork',
        forkOf: { sessionId: parent, checkpointId: checkpoint.body.checkpointId, revision: checkpoint.body.revision },
        turnIndex: 1,
      });
      const now = await post(`/v1/sessions/${parent}/fork`);
      expect(now.body).toMatchObject({ forkOf: { checkpointId: null }, turnIndex: 2 });
      const unknown = await post(`/v1/sessions/${parent}/fork`, { checkpointId: 'cp-12345' });
      expect(unknown.body.error.code).toBe('CHECKPOINT_NOT_FOUND');

      // The fork starts where the parent was, with a history (and checkpoints) of its own.
      const forkState = (await service.request('GET', `/v1/sessions/${forked.body.sessionId}/state`)).body.state;
      expect(JSON.stringify({ ...forkState, checkpointId: null })).toBe(JSON.stringify({ ...atCheckpoint, checkpointId: null }));
      expect((await service.request('GET', `/v1/sessions/${forked.body.sessionId}/checkpoints`)).body.checkpoints).toEqual([]);
      expect((await read(`/v1/sessions/${forked.body.sessionId}/parent`)).body.parent).toMatchObject({ sessionId: parent });
      expect(ids((await read(`/v1/sessions/${parent}/children`)).body.children)).toEqual([forked.body.sessionId, now.body.sessionId]);
      const parentEvents = (await service.request('GET', `/v1/sessions/${parent}/events?limit=100`)).body.events as Array<{
        type: string;
        data: { kind?: string };
      }>;
      expect(parentEvents.filter((event) => event.type === 'ChildSessionCreated').map((event) => event.data.kind)).toEqual(['fork', 'fork']);

      expect((await destroy(parent)).body.destroyed).toEqual([parent]);
      expect((await read(`/v1/sessions/${forked.body.sessionId}/parent`)).body).toMatchObject({ parent: null, orphaned: true });
      const next = await userTurn(forked.body.sessionId, 'two, alternatively');
      expect(next.body).toMatchObject({ turnIndex: 2 });
      expect(
        (await service.request('GET', `/v1/sessions/${forked.body.sessionId}/transcript`)).body.messages.map((message: { content: string }) => message.content),
      ).toEqual(['one', 'two, alternatively']);
    });

    it('refuses to switch a conversation back to a destroyed session with 409 SESSION_DESTROYED', async () => {
      const root = await newRoot();
      const reset = await post(`/v1/conversations/${encodeURIComponent(root.sessionKey)}/reset`);
      expect((await destroy(root.sessionId)).status).toBe(200);
      const back = await post(`/v1/conversations/${encodeURIComponent(root.sessionKey)}/switch`, { sessionId: root.sessionId });
      expect([back.status, back.body.error.code]).toEqual([409, 'SESSION_DESTROYED']);
      expect((await service.request('GET', `/v1/conversations/${encodeURIComponent(root.sessionKey)}`)).body.sessionId).toBe(reset.body.sessionId);
    });

    it('destroys a session: its children become orphans, its checkpoints stop being listed, its events stay for audit', async () => {
      const root = await newRoot();
      const middle = await child(root.sessionId);
      const leaf = await child(middle);
      const deeper = await child(leaf);
      await userTurn(middle, 'before the end');

      const refused = await destroy(root.sessionId);
      expect([refused.status, refused.body.error.code]).toEqual([409, 'SESSION_IN_USE']);

      const destroyed = await destroy(middle);
      expect(destroyed.status).toBe(200);
      expect(destroyed.body).toMatchObject({ sessionId: middle, destroyed: [middle] });
      expect((await destroy(middle)).body.destroyed).toEqual([]);

      expect((await service.request('GET', `/v1/sessions/${middle}`)).body).toMatchObject({ status: 'destroyed', destroyedAt: expect.any(String) });
      expect((await service.request('GET', `/v1/sessions/${middle}/checkpoints`)).body.checkpoints).toEqual([]);
      const late = await userTurn(middle, 'too late');
      expect([late.status, late.body.error.code]).toEqual([409, 'SESSION_DESTROYED']);
      const audit = (await service.request('GET', `/v1/sessions/${middle}/events`)).body.events.map((event: { type: string }) => event.type);
      expect(audit).toEqual(['SessionCreated', 'ChildSessionCreated', 'TurnRecorded', 'SessionDestroyed']);

      expect((await read(`/v1/sessions/${leaf}/parent`)).body).toMatchObject({ parent: null, orphaned: true });
      expect(ids((await read(`/v1/sessions/${root.sessionId}/tree`)).body.nodes)).toEqual([root.sessionId]);
      expect((await read(`/v1/sessions/${middle}/children`)).body.children).toEqual([]);
      const orphanTree = await read(`/v1/sessions/${leaf}/tree`);
      expect(orphanTree.body).toMatchObject({ rootSessionId: leaf, depth: 0 });
      expect(orphanTree.body.nodes.map((node: { sessionId: string; depth: number }) => [node.sessionId, node.depth])).toEqual([
        [leaf, 0],
        [deeper, 1],
      ]);
      expect((await read(`/v1/sessions/${deeper}/parent`)).body.parent).toMatchObject({ sessionId: leaf, depth: 0 });
      expect((await post(`/v1/sessions/${middle}/children`, { agentName: 'x' })).body.error.code).toBe('SESSION_DESTROYED');
    });

    it('destroys a whole subtree with ?cascade=true, deepest first', async () => {
      const root = await newRoot();
      const top = await child(root.sessionId);
      const left = await child(top);
      const right = await child(top);
      const leftLeaf = await child(left);
      const sibling = await child(root.sessionId);

      const cascade = await destroy(top, true);
      expect(cascade.status).toBe(200);
      expect(cascade.body.destroyed).toHaveLength(4);
      expect(cascade.body.destroyed[0]).toBe(leftLeaf);
      expect(cascade.body.destroyed.at(-1)).toBe(top);
      expect(new Set(cascade.body.destroyed)).toEqual(new Set([top, left, right, leftLeaf]));
      for (const sessionId of [top, left, right, leftLeaf]) expect((await service.request('GET', `/v1/sessions/${sessionId}`)).body.status).toBe('destroyed');
      const events = (await service.request('GET', `/v1/sessions/${leftLeaf}/events`)).body.events;
      expect(events.at(-1)).toMatchObject({ type: 'SessionDestroyed', data: { reason: 'cascade', cascadeFrom: top } });
      expect(ids((await read(`/v1/sessions/${root.sessionId}/tree`)).body.nodes)).toEqual([root.sessionId, sibling]);

      // Once the conversation has moved on, its former session may be destroyed, subtree and all.
      await post(`/v1/conversations/${enc(root.sessionKey)}/reset`);
      expect((await destroy(root.sessionId, true)).body.destroyed).toEqual([sibling, root.sessionId]);
    });

    it('rebuilds the session tree from position 0 to the same rows', async () => {
      const table = `"${service.config.readModelSchema}".session_tree`;
      const rows = () => service.infrastructure.readModels.query(`SELECT * FROM ${table} ORDER BY session_id`);
      await read(`/v1/sessions/${(await newRoot()).sessionId}/tree`);
      const live = await rows();
      expect(live.length).toBeGreaterThan(15);
      expect(live.some((row: { destroyed: boolean }) => row.destroyed)).toBe(true);
      const rebuild = await service.request('POST', '/v1/admin/projections/session-tree/rebuild');
      expect(rebuild.status).toBe(202);
      const caughtUp = await service.request('GET', `/v1/sessions/${live[0].session_id}/parent?minPosition=${head}`);
      expect(caughtUp.status).toBe(200);
      expect(await rows()).toEqual(live);
    });
  });
}
