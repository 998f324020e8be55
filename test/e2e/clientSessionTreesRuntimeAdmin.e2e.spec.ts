// The typed client's session-tree, memory, slot, job-edit, runtime and admin methods against the real service: what
// each answers, and that every write carries an Idempotency-Key so a lost answer is retried without a second write.
import { beforeAll, expect, it } from 'vitest';
import { LedgerClient, ledgerOperations, type Operation } from '../../src/client/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

/** Real fetch, keeping each request's method, path and Idempotency-Key. */
function recordingFetch() {
  const requests: Array<{ method: string; path: string; key: string | undefined }> = [];
  const recorded: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    requests.push({ method: init?.method ?? 'GET', path: url.pathname, key: (init?.headers as Record<string, string>)['idempotency-key'] });
    return fetch(input, init);
  };
  return { fetch: recorded, requests };
}

/** The operation a request was, by method and path template. */
function operationOf(method: string, path: string): string | undefined {
  return Object.entries(ledgerOperations as Record<string, Operation>).find(
    ([, operation]) => operation.method === method && new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  )?.[0];
}

forEachBackend(
  'typed client, session trees, runtime and admin',
  (ledger) => {
    let chat = 0;
    const recording = recordingFetch();
    let client: LedgerClient;
    const resolve = () => client.resolveSession({ source: { platform: 'web', chatType: 'dm', chatId: `${ledger.backend}-wrapped-${++chat}` } });

    beforeAll(() => {
      // The client under test with its own defaults (retries, an Idempotency-Key on every write), not forEachBackend's.
      client = new LedgerClient({ baseUrl: ledger.service.url, fetch: recording.fetch });
    });

    it('forks and spawns children, lists children and parent, pages the tree, and destroys a subtree', async () => {
      const { sessionId: root } = await resolve();
      await client.recordTurn(root, { messages: [{ role: 'user', content: 'plan the trip' }] });
      const researcher = await client.createChild(root, { agentName: 'researcher' });
      const fork = await client.forkSession(root, { agentName: 'planner-b' });
      const grandchild = await client.createChild(researcher.sessionId, { agentName: 'fetcher' });

      const children = await client.listChildren(root, { limit: 1 });
      expect(children.children.map((node) => [node.sessionId, node.kind, node.agentName, node.depth])).toEqual([
        [researcher.sessionId, 'child', 'researcher', 1],
      ]);
      const rest = await client.listChildren(root, { cursor: children.nextCursor! });
      expect(rest).toMatchObject({ children: [{ sessionId: fork.sessionId, kind: 'fork', parentSessionId: root }], nextCursor: null });

      expect(await client.sessionParent(grandchild.sessionId)).toMatchObject({
        sessionId: grandchild.sessionId,
        parent: { sessionId: researcher.sessionId, depth: 1 },
        orphaned: false,
      });
      expect(await client.sessionParent(root)).toEqual({ sessionId: root, parent: null, orphaned: false });

      const shallow = await client.sessionTree(root, { maxDepth: 1 });
      expect(shallow.nodes.map((node) => node.sessionId).sort()).toEqual([root, researcher.sessionId, fork.sessionId].sort());
      const deep = await client.sessionTree(root);
      expect(deep.nodes).toHaveLength(4);
      expect(deep.nodes[0]).toMatchObject({ sessionId: root, depth: 0, kind: 'root', parentSessionId: null });

      const destroyed = await client.destroySession(researcher.sessionId, { cascade: true });
      expect(destroyed.destroyed.sort()).toEqual([researcher.sessionId, grandchild.sessionId].sort());
      expect((await client.getSession(grandchild.sessionId)).status).toBe('destroyed');
      expect((await client.sessionTree(root)).nodes.map((node) => node.sessionId).sort()).toEqual([root, fork.sessionId].sort());
      // Destroyed already: nothing more to destroy, the same success.
      expect(await client.destroySession(researcher.sessionId)).toMatchObject({ sessionId: researcher.sessionId, destroyed: [] });

      const forkState = await client.sessionState(fork.sessionId);
      expect(forkState.forkOf).toMatchObject({ sessionId: root, checkpointId: null });
      expect(forkState.state.transcript.map((message) => message.content)).toEqual(['plan the trip']);
    });

    it('sets and removes memory entries, creates and switches context slots', async () => {
      const { sessionId } = await resolve();
      const set = await client.setMemory(sessionId, 'user.timezone', { value: { tz: 'Europe/Oslo' }, metadata: { from: 'profile' } });
      expect(set).toMatchObject({ name: 'user.timezone', value: { tz: 'Europe/Oslo' }, metadata: { from: 'profile' } });
      const updated = await client.setMemory(sessionId, 'user.timezone', { value: { tz: 'UTC' } });
      expect(updated.createdAt).toBe(set.createdAt);
      expect((await client.sessionMemory(sessionId)).entries.map((entry) => [entry.name, entry.value])).toEqual([['user.timezone', { tz: 'UTC' }]]);
      expect(await client.removeMemory(sessionId, 'user.timezone')).toMatchObject({ name: 'user.timezone', removed: true });
      await expect(client.removeMemory(sessionId, 'user.timezone')).rejects.toMatchObject({ status: 404, code: 'MEMORY_ENTRY_NOT_FOUND' });

      expect(await client.createSlot(sessionId, 'research')).toMatchObject({ name: 'research' });
      await expect(client.createSlot(sessionId, 'research')).rejects.toMatchObject({ status: 409, code: 'SLOT_EXISTS' });
      expect(await client.switchSlot(sessionId, 'research')).toMatchObject({ currentSlot: 'research', previous: 'main' });
      await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'look this up' }] });
      const slots = await client.sessionSlots(sessionId);
      expect(slots.currentSlot).toBe('research');
      expect(slots.slots.map((slot) => [slot.name, slot.messageCount, slot.current])).toEqual([
        ['main', 0, false],
        ['research', 1, true],
      ]);
      expect((await client.getTranscript(sessionId, { slot: 'research' })).messages.map((message) => message.content)).toEqual(['look this up']);
      expect((await client.getTranscript(sessionId, { slot: 'main' })).messages).toEqual([]);
    });

    it('searches transcripts: hits by rank with marked snippets, or grouped by session', async () => {
      const { sessionId, sessionKey } = await resolve();
      const word = `zebra${ledger.backend}${chat}`;
      await client.recordTurn(sessionId, {
        messages: [
          { role: 'user', content: `where do ${word} live?` },
          { role: 'assistant', content: `${word} live in Africa` },
        ],
      });
      const hits = await client.search({ q: word, sessionKey });
      expect(hits.hits.map((hit) => [hit.sessionId, hit.role, hit.messageIndex]).sort()).toEqual([
        [sessionId, 'assistant', 1],
        [sessionId, 'user', 0],
      ]);
      expect(hits.hits[0]!.snippetParts.some((part) => part.match)).toBe(true);
      const onlyUser = await client.search({ q: word, role: 'user', limit: 1 });
      expect(onlyUser).toMatchObject({ query: word, hits: [{ role: 'user' }], nextCursor: null });
      const grouped = await client.search({ q: word, groupBy: 'session', hitsPerSession: 1 });
      expect(grouped.sessions).toMatchObject([{ sessionId, hitCount: 2 }]);
      expect(grouped.sessions[0]!.hits).toHaveLength(1);
    });

    it('pauses, edits and resumes a job', async () => {
      const job = await client.createJob({ skill: 'digest', schedule: '* * * * *', prompt: 'Summarise' });
      // Every minute: always due within the early-fire tolerance.
      const fired = await client.fireJob(job.id);
      await client.reportRun(job.id, fired.fireId, { status: 'ok' });
      expect((await client.getJob(job.id)).recentFires).toMatchObject([{ fireId: fired.fireId, status: 'ok', trigger: 'external' }]);

      const paused = await client.updateJob(job.id, { enabled: false, prompt: 'Summarise briefly', deliverTo: { platform: 'telegram', chatId: '42' } });
      expect(paused).toMatchObject({ id: job.id, enabled: false, state: 'paused', prompt: 'Summarise briefly', changed: true });
      expect(paused.deliverTo).toEqual({ platform: 'telegram', chatId: '42', threadId: null });
      expect(await client.updateJob(job.id, { enabled: false })).toMatchObject({ changed: false });
      const resumed = await client.updateJob(job.id, { enabled: true, schedule: '0 9 * * *', timeZone: 'Europe/Oslo' });
      expect(resumed).toMatchObject({
        state: 'scheduled',
        scheduleKind: 'cron',
        scheduleDefinition: { kind: 'cron', expression: '0 9 * * *' },
        timeZone: 'Europe/Oslo',
      });
      expect((await client.getJob(job.id)).lastStatus).toBe('ok');
    });

    it('runs a runtime turn through approvals and a question, reads the binding and the runtime session, and unbinds', async () => {
      const { sessionKey } = await resolve();
      expect(await client.runtimeBinding(sessionKey)).toMatchObject({ state: 'unbound', runtimeSessionId: null, runtime: null });
      const turn = await client.runtimeTurn(sessionKey, { provider: 'codex', model: 'gpt-5', input: 'fix the build' });
      expect(turn).toMatchObject({ newSession: true, reason: 'new', state: 'cold', bindingState: 'running', runtimeState: 'starting' });
      const id = turn.runtimeSessionId;
      await expect(client.runtimeTurn(sessionKey, { provider: 'codex', model: 'gpt-5', input: 'again' })).rejects.toMatchObject({
        status: 409,
        code: 'RUNTIME_BUSY',
      });

      expect(await client.reportWorkerEvent(id, { type: 'started' })).toMatchObject({ state: 'running', currentTurnId: turn.turnId, changed: true });
      await client.reportWorkerEvent(id, { type: 'approval_request', approvalId: 'appr-1', details: { command: 'npm publish' } });
      const pending = await client.runtimePending(sessionKey);
      expect(pending).toMatchObject({ runtimeSessionId: id, runtimeState: 'waiting_approval', questions: [] });
      expect(pending.approvals).toMatchObject([{ approvalId: 'appr-1', details: { command: 'npm publish' } }]);
      expect(await client.answerApproval(id, 'appr-1', { decision: 'allow', remember: 'session' })).toMatchObject({
        approvalId: 'appr-1',
        decision: 'allow',
        remember: 'session',
        state: 'running',
      });
      await client.reportWorkerEvent(id, { type: 'question', questionId: 'q-1', details: { text: 'which branch?' } });
      expect((await client.runtimeBinding(sessionKey)).state).toBe('waiting_user');
      expect(await client.answerQuestion(id, 'q-1', 'main')).toMatchObject({ questionId: 'q-1', state: 'running' });
      await client.reportWorkerEvent(id, { type: 'completed', output: { commits: 1 } });

      const record = await client.getRuntimeSession(id);
      expect(record).toMatchObject({ provider: 'codex', model: 'gpt-5', state: 'idle', sessionKey, boundConversations: [sessionKey], turnCount: 1 });
      expect(record.turns.map((recorded) => recorded.status)).toEqual(['completed']);
      expect(record.resolvedApprovals).toMatchObject([{ approvalId: 'appr-1', by: 'user' }]);
      expect(record.answeredQuestions).toMatchObject([{ questionId: 'q-1', answer: 'main' }]);

      const task = await client.newRuntime(sessionKey, { task: 'write the changelog', provider: 'claude' });
      expect(task).toMatchObject({ reason: 'task', provider: 'claude', previousRuntimeSessionId: id, newSession: true });
      await client.reportWorkerEvent(task.runtimeSessionId, { type: 'failed', error: 'no changelog' });
      const unbound = await client.newRuntime(sessionKey);
      expect(unbound).toMatchObject({ state: 'unbound', detachedRuntimeSessionId: task.runtimeSessionId, changed: true });
      expect(await client.detachRuntime(sessionKey)).toMatchObject({ state: 'unbound', detachedRuntimeSessionId: null, changed: false });
    });

    it('reads projections and the stream index, prunes, erases a conversation and rebuilds a projection', async () => {
      const { sessionKey, sessionId } = await resolve();
      await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'my card is 4111 1111 1111 1111' }] });
      const { projections } = await client.listProjections();
      expect(projections.map((projection) => projection.name)).toEqual(expect.arrayContaining(['sessions-index', 'session-tree', 'jobs']));
      expect(await client.getProjection('session-tree')).toMatchObject({ name: 'session-tree', parkedStreams: [] });
      await expect(client.getProjection('no-such-projection')).rejects.toMatchObject({ status: 404 });

      const streams = await client.listStreams({ category: 'session', limit: 2 });
      expect(streams.streams).toHaveLength(2);
      expect(streams.streams.every((stream) => stream.category === 'session')).toBe(true);
      const older = await client.listStreams({ category: 'session', limit: 2, cursor: streams.nextCursor! });
      expect(older.streams[0]!.lastPosition).toBeLessThan(streams.streams[1]!.lastPosition);

      expect(await client.pruneConversations(0)).toEqual({ maxAgeDays: 0, pruned: [], position: 0 });
      expect((await client.pruneConversations(3650)).pruned).toEqual([]);

      const erased = await client.eraseConversation({ sessionKey });
      expect(erased.sessionsDestroyed).toBeGreaterThanOrEqual(1);
      expect(erased.eventsRewritten).toBeGreaterThan(0);
      await expect(client.getConversation(sessionKey)).rejects.toMatchObject({ status: 404 });
      expect(await client.eraseConversation({ sessionKey })).toMatchObject({ erasureId: erased.erasureId });

      const rebuilding = await client.rebuildProjection('jobs');
      expect(rebuilding.name).toBe('jobs');
    });

    it('sent an Idempotency-Key with every write above, a fresh one per call', () => {
      const writes = recording.requests.filter((request) => request.method !== 'GET');
      const covered = new Set(writes.map((request) => operationOf(request.method, request.path)));
      for (const name of [
        'destroySession',
        'setMemory',
        'removeMemory',
        'createSlot',
        'switchSlot',
        'updateJob',
        'runtimeTurn',
        'newRuntime',
        'detachRuntime',
        'reportWorkerEvent',
        'answerApproval',
        'answerQuestion',
        'rebuildProjection',
        'pruneConversations',
        'eraseConversation',
      ])
        expect(covered.has(name), name).toBe(true);
      expect(writes.filter((request) => !request.key)).toEqual([]);
      expect(new Set(writes.map((request) => request.key)).size).toBe(writes.length);
    });

    it('retries a write whose answer was lost with the same key: the slot is created once, not refused as existing', async () => {
      const { sessionId } = await resolve();
      let loseNext = false;
      const keys: string[] = [];
      const losing: typeof fetch = async (input, init) => {
        keys.push((init?.headers as Record<string, string>)['idempotency-key'] ?? '');
        const response = await fetch(input, init);
        if (!loseNext) return response;
        loseNext = false;
        await response.arrayBuffer();
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      };
      const lossy = new LedgerClient({ baseUrl: ledger.service.url, fetch: losing, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
      loseNext = true;
      expect(await lossy.createSlot(sessionId, 'drafts')).toMatchObject({ name: 'drafts' });
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect((await client.sessionSlots(sessionId)).slots.map((slot) => slot.name)).toEqual(['drafts', 'main']);
    });
  },
  { env: { JOB_TICK_INTERVAL_MS: '0' } },
);
