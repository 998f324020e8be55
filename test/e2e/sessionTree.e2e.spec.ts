// Session trees over real HTTP: children, forks, parent/children/tree reads, destroy, cascade, orphans, and a rebuild of the tree.
import { expect, it } from 'vitest';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

// Reads go through the typed client, which sends the highest position its own commands answered (X-Min-Position):
// the tree's read model answers after it has applied them.
forEachBackend(
  'session trees',
  (ledger) => {
    let chat = 0;
    const newRoot = () => ledger.client.resolveSession({ source: sourceOn('slack', `tree-${ledger.backend}-${++chat}`) });
    const child = async (parentId: string, agentName = 'worker') =>
      (await ledger.client.createChild(parentId, { agentName, metadata: { task: agentName } })).sessionId;
    const userTurn = (sessionId: string, text: string) =>
      ledger.client.recordTurn(sessionId, { messages: [{ role: 'user', content: text }], usage: { inputTokens: 3 } });
    const destroy = (sessionId: string, cascade = false) => ledger.client.destroySession(sessionId, cascade ? { cascade } : {});
    const ids = (nodes: Array<{ sessionId: string }>) => nodes.map((node) => node.sessionId);
    const depths = (nodes: Array<{ sessionId: string; depth: number }>) => nodes.map((node) => [node.sessionId, node.depth]);

    it("creates children with the parent's origin and serves children, parent and the subtree with depths", async () => {
      const { client } = ledger;
      const root = await newRoot();
      const created = await client.createChild(root.sessionId, { agentName: 'researcher', metadata: { goal: 'find cats' } });
      expect(created).toMatchObject({ parentSessionId: root.sessionId, kind: 'child', agentName: 'researcher' });
      const first = created.sessionId;
      const second = await child(root.sessionId, 'writer');
      const grandchild = await child(first, 'helper');

      const session = await client.getSession(first);
      expect(session).toMatchObject({
        status: 'active',
        sessionKey: root.sessionKey,
        parentSessionId: root.sessionId,
        agentName: 'researcher',
        metadata: { goal: 'find cats' },
        turnCount: 0,
      });
      expect((await client.getSession(root.sessionId)).origin).toEqual(session.origin);
      // A child's turns are its own; they do not end it as "superseded" by its conversation's session.
      await userTurn(first, 'working');

      const children = await client.listChildren(root.sessionId);
      expect(ids(children.children)).toEqual([first, second]);
      expect(children.children[0]).toMatchObject({ parentSessionId: root.sessionId, depth: 1, kind: 'child', agentName: 'researcher' });
      const firstPage = await client.listChildren(root.sessionId, { limit: 1 });
      const secondPage = await client.listChildren(root.sessionId, { limit: 1, cursor: firstPage.nextCursor! });
      expect([...ids(firstPage.children), ...ids(secondPage.children)]).toEqual([first, second]);
      expect(secondPage.nextCursor).toBeNull();

      expect(await client.sessionParent(grandchild)).toMatchObject({ parent: { sessionId: first, depth: 1 }, orphaned: false });
      expect(await client.sessionParent(root.sessionId)).toMatchObject({ parent: null, orphaned: false });

      const tree = await client.sessionTree(root.sessionId);
      // Depth-first by path: siblings in id order, each followed by its own subtree.
      const firstBranch = [
        [first, 1],
        [grandchild, 2],
      ];
      const branches = first < second ? [...firstBranch, [second, 1]] : [[second, 1], ...firstBranch];
      expect(depths(tree.nodes)).toEqual([[root.sessionId, 0], ...branches]);
      const subtree = await client.sessionTree(first);
      expect(subtree).toMatchObject({ rootSessionId: root.sessionId, depth: 1 });
      expect(depths(subtree.nodes)).toEqual([
        [first, 0],
        [grandchild, 1],
      ]);
      const shallow = await client.sessionTree(root.sessionId, { maxDepth: 1 });
      expect(ids(shallow.nodes)).not.toContain(grandchild);
      const pages: string[] = [];
      for (let cursor: string | null = null, round = 0; round === 0 || cursor; round++) {
        const page: { nodes: Array<{ sessionId: string }>; nextCursor: string | null } = await client.sessionTree(root.sessionId, {
          limit: 2,
          ...(cursor ? { cursor } : {}),
        });
        pages.push(...ids(page.nodes));
        cursor = page.nextCursor;
      }
      expect(pages).toEqual(ids(tree.nodes));
      expect((await refusalOf(client.sessionTree('20260101_000000_deadbeef'))).status).toBe(404);
      expect((await refusalOf(client.createChild(root.sessionId, { agentName: 'bad name!' }))).status).toBe(400);
    });

    it('refuses a forged page cursor holding a NUL with 400 INVALID_CURSOR, in children and subtree listings', async () => {
      const root = await newRoot();
      await child(root.sessionId);
      await child(root.sessionId);
      const listings = {
        children: (query: { limit?: number; cursor?: string }) => ledger.client.listChildren(root.sessionId, query),
        tree: (query: { limit?: number; cursor?: string }) => ledger.client.sessionTree(root.sessionId, query),
      };
      for (const [listing, list] of Object.entries(listings)) {
        const page = await list({ limit: 1 });
        const parts = JSON.parse(Buffer.from(page.nextCursor!, 'base64url').toString('utf8')) as string[];
        const forged = Buffer.from(JSON.stringify(parts.map((part) => `${part}\u0000`))).toString('base64url');
        expect(await refusalOf(list({ cursor: forged })), listing).toEqual({ status: 400, code: 'INVALID_CURSOR' });
      }
    });

    it('forks at a checkpoint or now into a self-contained child that outlives its parent', async () => {
      const { client } = ledger;
      const root = await newRoot();
      const parent = await child(root.sessionId, 'planner');
      await userTurn(parent, 'one');
      await client.setMemory(parent, 'plan', { value: ['a', 'b'] });
      const checkpoint = await client.createCheckpoint(parent, { label: 'plan made' });
      const atCheckpoint = (await client.sessionState(parent)).state;
      await userTurn(parent, 'two');

      const forked = await client.forkSession(parent, { checkpointId: checkpoint.checkpointId, agentName: 'alternative' });
      expect(forked).toMatchObject({
        parentSessionId: parent,
        kind: 'fork',
        forkOf: { sessionId: parent, checkpointId: checkpoint.checkpointId, revision: checkpoint.revision },
        turnIndex: 1,
      });
      const now = await client.forkSession(parent);
      expect(now).toMatchObject({ forkOf: { checkpointId: null }, turnIndex: 2 });
      expect((await refusalOf(client.forkSession(parent, { checkpointId: 'cp-12345' }))).code).toBe('CHECKPOINT_NOT_FOUND');

      // The fork starts where the parent was, with a history (and checkpoints) of its own.
      const forkState = (await client.sessionState(forked.sessionId)).state;
      expect(JSON.stringify({ ...forkState, checkpointId: null })).toBe(JSON.stringify({ ...atCheckpoint, checkpointId: null }));
      expect((await client.listCheckpoints(forked.sessionId)).checkpoints).toEqual([]);
      expect((await client.sessionParent(forked.sessionId)).parent).toMatchObject({ sessionId: parent });
      expect(ids((await client.listChildren(parent)).children)).toEqual([forked.sessionId, now.sessionId]);
      const parentEvents = (await client.sessionEvents(parent, { limit: 100 })).events;
      expect(parentEvents.filter((event) => event.type === 'ChildSessionCreated').map((event) => event.data.kind)).toEqual(['fork', 'fork']);

      expect((await destroy(parent)).destroyed).toEqual([parent]);
      expect(await client.sessionParent(forked.sessionId)).toMatchObject({ parent: null, orphaned: true });
      const next = await userTurn(forked.sessionId, 'two, alternatively');
      expect(next).toMatchObject({ turnIndex: 2 });
      expect((await client.getTranscript(forked.sessionId)).messages.map((message) => message.content)).toEqual(['one', 'two, alternatively']);
    });

    it('refuses to switch a conversation back to a destroyed session with 409 SESSION_DESTROYED', async () => {
      const { client } = ledger;
      const root = await newRoot();
      const reset = await client.resetConversation(root.sessionKey);
      await destroy(root.sessionId);
      expect(await refusalOf(client.switchSession(root.sessionKey, root.sessionId))).toEqual({ status: 409, code: 'SESSION_DESTROYED' });
      expect((await client.getConversation(root.sessionKey)).sessionId).toBe(reset.sessionId);
    });

    it('destroys a session: its children become orphans, its checkpoints stop being listed, its events stay for audit', async () => {
      const root = await newRoot();
      const middle = await child(root.sessionId);
      const leaf = await child(middle);
      const deeper = await child(leaf);
      await userTurn(middle, 'before the end');

      const { client } = ledger;
      expect(await refusalOf(destroy(root.sessionId))).toEqual({ status: 409, code: 'SESSION_IN_USE' });

      const destroyed = await destroy(middle);
      expect(destroyed).toMatchObject({ sessionId: middle, destroyed: [middle] });
      expect((await destroy(middle)).destroyed).toEqual([]);

      expect(await client.getSession(middle)).toMatchObject({ status: 'destroyed', destroyedAt: expect.any(String) });
      expect((await client.listCheckpoints(middle)).checkpoints).toEqual([]);
      expect(await refusalOf(userTurn(middle, 'too late'))).toEqual({ status: 409, code: 'SESSION_DESTROYED' });
      const audit = (await client.sessionEvents(middle)).events.map((event) => event.type);
      expect(audit).toEqual(['SessionCreated', 'ChildSessionCreated', 'TurnRecorded', 'SessionDestroyed']);

      expect(await client.sessionParent(leaf)).toMatchObject({ parent: null, orphaned: true });
      expect(ids((await client.sessionTree(root.sessionId)).nodes)).toEqual([root.sessionId]);
      expect((await client.listChildren(middle)).children).toEqual([]);
      const orphanTree = await client.sessionTree(leaf);
      expect(orphanTree).toMatchObject({ rootSessionId: leaf, depth: 0 });
      expect(depths(orphanTree.nodes)).toEqual([
        [leaf, 0],
        [deeper, 1],
      ]);
      expect((await client.sessionParent(deeper)).parent).toMatchObject({ sessionId: leaf, depth: 0 });
      expect((await refusalOf(client.createChild(middle, { agentName: 'x' }))).code).toBe('SESSION_DESTROYED');
    });

    it('destroys a whole subtree with ?cascade=true, deepest first', async () => {
      const root = await newRoot();
      const top = await child(root.sessionId);
      const left = await child(top);
      const right = await child(top);
      const leftLeaf = await child(left);
      const sibling = await child(root.sessionId);

      const { client } = ledger;
      const cascade = await destroy(top, true);
      expect(cascade.destroyed).toHaveLength(4);
      expect(cascade.destroyed[0]).toBe(leftLeaf);
      expect(cascade.destroyed.at(-1)).toBe(top);
      expect(new Set(cascade.destroyed)).toEqual(new Set([top, left, right, leftLeaf]));
      for (const sessionId of [top, left, right, leftLeaf]) expect((await client.getSession(sessionId)).status).toBe('destroyed');
      const { events } = await client.sessionEvents(leftLeaf);
      expect(events.at(-1)).toMatchObject({ type: 'SessionDestroyed', data: { reason: 'cascade', cascadeFrom: top } });
      expect(ids((await client.sessionTree(root.sessionId)).nodes)).toEqual([root.sessionId, sibling]);

      // Once the conversation has moved on, its former session may be destroyed, subtree and all.
      await client.resetConversation(root.sessionKey);
      expect((await destroy(root.sessionId, true)).destroyed).toEqual([sibling, root.sessionId]);
    });

    it('rebuilds the session tree from position 0 to the same rows', async () => {
      const { client, service } = ledger;
      const table = `"${service.config.readModelSchema}".session_tree`;
      const rows = () => service.infrastructure.readModels.query(`SELECT * FROM ${table} ORDER BY session_id`);
      await client.sessionTree((await newRoot()).sessionId);
      const live = await rows();
      expect(live.length).toBeGreaterThan(15);
      expect(live.some((row: { destroyed: boolean }) => row.destroyed)).toBe(true);
      await client.rebuildProjection('session-tree');
      // Answers once the rebuilt tree has applied every write this client made.
      await client.sessionParent(live[0].session_id);
      expect(await rows()).toEqual(live);
    });
  },
  { env: { READ_WAIT_TIMEOUT_MS: '5000' } },
);
