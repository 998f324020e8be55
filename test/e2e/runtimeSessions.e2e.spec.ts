// Runtime sessions over real HTTP: sticky binding, drift, /new, /detach, approvals and questions, stale detection with a ManualClock.
import { expect, it } from 'vitest';
import type { RuntimeTurnRequest, WorkerEvent } from '../../src/client/index.js';
import { RuntimeWatchdog } from '../../src/modules/runtime/runtimeWatchdog.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

const clockOf = clockPerBackend(new Date('2026-06-01T12:00:00Z'));

forEachBackend(
  'runtime sessions',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    let chat = 0;

    const conversation = async () => (await ledger.client.resolveSession({ source: sourceOn('web', `${ledger.backend}-rt-${++chat}`) })).sessionKey;
    const turn = (key: string, request: Partial<RuntimeTurnRequest>) =>
      ledger.client.runtimeTurn(key, { provider: 'codex', model: 'gpt-5', input: 'go', ...request });
    const runtimeOf = (key: string) => ledger.client.runtimeBinding(key);
    const report = (id: string, event: WorkerEvent) => ledger.client.reportWorkerEvent(id, event);
    const runtimeSession = (id: string) => ledger.client.getRuntimeSession(id);

    it('binds a new runtime session on the first turn, refuses a second while one runs, and stays bound after completed', async () => {
      const key = await conversation();
      expect((await runtimeOf(key)).state).toBe('unbound');
      const first = await turn(key, { input: 'fix the build' });
      expect(first).toMatchObject({
        sessionKey: key,
        turnId: 'turn_1',
        newSession: true,
        reason: 'new',
        state: 'cold',
        bindingState: 'running',
        runtimeState: 'starting',
      });
      const id = first.runtimeSessionId;
      expect(id).toMatch(/^rt_[0-9a-f]{16}$/);

      expect(await refusalOf(turn(key, { input: 'and also' }))).toEqual({ status: 409, code: 'RUNTIME_BUSY' });

      expect(await report(id, { type: 'started', turnId: 'turn_1' })).toMatchObject({ state: 'running', changed: true });
      expect((await report(id, { type: 'progress', message: 'compiling' })).state).toBe('running');
      const done = await report(id, { type: 'completed', output: { summary: 'fixed' } });
      expect(done).toMatchObject({ state: 'idle', currentTurnId: null });

      const binding = await runtimeOf(key);
      expect(binding).toMatchObject({ state: 'idle', runtimeSessionId: id, provider: 'codex', model: 'gpt-5', reason: 'new' });
      const followUp = await turn(key, { input: 'now the tests' });
      expect(followUp).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2', newSession: false, reason: 'reused', state: 'warm' });
    });

    it('stays bound after a failed turn', async () => {
      const key = await conversation();
      const id = (await turn(key, {})).runtimeSessionId;
      const failed = await report(id, { type: 'failed', error: 'tool crashed' });
      expect(failed.state).toBe('idle');
      expect(await runtimeOf(key)).toMatchObject({
        state: 'idle',
        runtimeSessionId: id,
        runtime: { lastError: { kind: 'turn_failed', message: 'tool crashed' } },
      });
      expect(await turn(key, {})).toMatchObject({ runtimeSessionId: id, newSession: false });
    });

    it('drift to another provider or model binds a new runtime session and leaves a status note', async () => {
      const key = await conversation();
      const { client } = ledger;
      const first = await turn(key, {});
      await report(first.runtimeSessionId, { type: 'completed' });
      const drifted = await turn(key, { provider: 'claude', model: 'sonnet' });
      expect(drifted).toMatchObject({
        newSession: true,
        reason: 'drift',
        previousRuntimeSessionId: first.runtimeSessionId,
        note: 'provider changed from codex to claude; model changed from gpt-5 to sonnet: started a new runtime session',
      });
      expect(drifted.runtimeSessionId).not.toBe(first.runtimeSessionId);
      expect((await runtimeOf(key)).note).toMatchObject({ note: drifted.note, runtimeSessionId: drifted.runtimeSessionId });
      // The note is in the conversation's transcript too, as a system message that is not a turn.
      const { sessionId } = await client.getConversation(key);
      const transcript = (await client.getTranscript(sessionId)).messages;
      expect(transcript.at(-1)).toMatchObject({ role: 'system', content: drifted.note, metadata: { status: 'runtime_drift' } });
      expect((await client.getSession(sessionId)).turnCount).toBe(0);
      // The old session is no longer bound to anything.
      expect((await runtimeSession(first.runtimeSessionId)).boundConversations).toEqual([]);
    });

    it('newSession forces a new runtime session (reason new_command)', async () => {
      const key = await conversation();
      const first = await turn(key, {});
      await report(first.runtimeSessionId, { type: 'completed' });
      expect(await turn(key, { newSession: true })).toMatchObject({
        newSession: true,
        reason: 'new_command',
        previousRuntimeSessionId: first.runtimeSessionId,
      });
    });

    it('/new unbinds; /new <task> and /new claude <task> start a new session at once; /detach unbinds only', async () => {
      const key = await conversation();
      const { client } = ledger;
      const first = await turn(key, {});
      await report(first.runtimeSessionId, { type: 'completed' });

      const unbound = await client.newRuntime(key);
      expect(unbound).toMatchObject({ state: 'unbound', detachedRuntimeSessionId: first.runtimeSessionId, changed: true });
      expect((await runtimeOf(key)).state).toBe('unbound');

      expect(await refusalOf(client.newRuntime(key, { task: 'write docs' }))).toEqual({ status: 400, code: 'PROVIDER_REQUIRED' });

      const task = await client.newRuntime(key, { task: 'write docs', provider: 'codex' });
      expect(task).toMatchObject({ newSession: true, reason: 'task', provider: 'codex', model: 'default', bindingState: 'running', turnId: 'turn_1' });
      await report(task.runtimeSessionId, { type: 'completed' });

      const claude = await client.newRuntime(key, { task: 'review it', provider: 'claude', model: 'opus' });
      expect(claude).toMatchObject({ reason: 'task', provider: 'claude', model: 'opus', previousRuntimeSessionId: task.runtimeSessionId });

      const detached = await client.detachRuntime(key);
      expect(detached).toMatchObject({ state: 'unbound', detachedRuntimeSessionId: claude.runtimeSessionId, changed: true });
      expect((await client.detachRuntime(key)).changed).toBe(false);
      // The detached session and its turn in flight are still there.
      expect(await runtimeSession(claude.runtimeSessionId)).toMatchObject({
        state: 'starting',
        boundConversations: [],
      });
    });

    it('approvals and questions: pending, answered through the API, cleared by completed', async () => {
      const key = await conversation();
      const { client } = ledger;
      const id = (await turn(key, {})).runtimeSessionId;
      await report(id, { type: 'started' });
      expect((await report(id, { type: 'approval_request', approvalId: 'appr-1', details: { command: 'npm publish' } })).state).toBe('waiting_approval');
      expect((await runtimeOf(key)).state).toBe('waiting_approval');
      const pending = await client.runtimePending(key);
      expect(pending).toMatchObject({
        runtimeSessionId: id,
        approvals: [{ approvalId: 'appr-1', turnId: 'turn_1', details: { command: 'npm publish' } }],
        questions: [],
      });

      const approved = await client.answerApproval(id, 'appr-1', { decision: 'allow', remember: 'session' });
      expect(approved).toMatchObject({ decision: 'allow', remember: 'session', state: 'running', changed: true });
      expect((await refusalOf(client.answerApproval(id, 'appr-1', { decision: 'deny' }))).status).toBe(409);
      expect((await refusalOf(client.answerApproval(id, 'nope', { decision: 'deny' }))).status).toBe(404);

      await report(id, { type: 'question', questionId: 'q-1', details: { text: 'which branch?' } });
      expect((await runtimeOf(key)).state).toBe('waiting_user');
      const answered = await client.answerQuestion(id, 'q-1', 'main');
      expect(answered).toMatchObject({ questionId: 'q-1', state: 'running', changed: true });

      await report(id, { type: 'approval_request', approvalId: 'appr-2', details: {} });
      await report(id, { type: 'completed' });
      expect(await client.runtimePending(key)).toMatchObject({ approvals: [], questions: [] });

      expect(await runtimeSession(id)).toMatchObject({
        runtimeSessionId: id,
        provider: 'codex',
        model: 'gpt-5',
        state: 'idle',
        sessionKey: key,
        boundConversations: [key],
        turnCount: 1,
        turns: [{ turnId: 'turn_1', status: 'completed' }],
        resolvedApprovals: [{ approvalId: 'appr-1', decision: 'allow', remember: 'session', by: 'user' }],
        answeredQuestions: [{ questionId: 'q-1', answer: 'main' }],
        lastError: null,
      });
    });

    it('refuses reports with no turn in flight, unknown and malformed ids, and unknown conversations', async () => {
      const key = await conversation();
      const id = (await turn(key, {})).runtimeSessionId;
      await report(id, { type: 'completed' });
      expect(await refusalOf(report(id, { type: 'progress' }))).toEqual({ status: 409, code: 'NO_TURN_IN_FLIGHT' });
      expect((await refusalOf(report('rt_0000000000000000', { type: 'started' }))).code).toBe('RUNTIME_SESSION_NOT_FOUND');
      expect((await refusalOf(runtimeSession('rt_0000000000000000'))).status).toBe(404);
      expect((await refusalOf(runtimeSession('nope'))).code).toBe('INVALID_RUNTIME_SESSION_ID');
      // Raw: a report type the typed client never sends.
      expect((await ledger.service.request('POST', `/v1/runtime-sessions/${id}/events`, { body: { type: 'teleport' } })).status).toBe(400);
      expect(await refusalOf(turn('agent:main:web:dm:nobody', {}))).toEqual({ status: 404, code: 'CONVERSATION_NOT_FOUND' });
    });

    it('stale detection: a turn with no worker event past the heartbeat timeout is interrupted; the binding stays and a follow-up resumes it', async () => {
      const watchdog = ledger.service.app.get(RuntimeWatchdog);
      const key = await conversation();
      const id = (await turn(key, {})).runtimeSessionId;
      await report(id, { type: 'started' });
      await report(id, { type: 'question', questionId: 'q-stale', details: {} });
      const lively = await conversation();
      const livelyId = (await turn(lively, {})).runtimeSessionId;

      clock.advance(200_000);
      await report(livelyId, { type: 'progress' });
      clock.advance(101_000);
      const swept = await watchdog.sweep();
      expect(swept.interrupted).toContain(id);
      expect(swept.interrupted).not.toContain(livelyId);

      expect(await runtimeSession(id)).toMatchObject({
        state: 'interrupted',
        lastError: { kind: 'interrupted', reason: 'heartbeat_timeout', turnId: 'turn_1' },
        turns: [{ turnId: 'turn_1', status: 'interrupted' }],
        pendingQuestions: [{ questionId: 'q-stale' }],
      });
      expect((await runtimeOf(key)).state).toBe('idle');
      expect((await refusalOf(report(id, { type: 'completed' }))).code).toBe('RUNTIME_INTERRUPTED');
      // The question survives and stays answerable; the next turn continues the same runtime session.
      expect(await ledger.client.answerQuestion(id, 'q-stale', 'yes')).toMatchObject({
        state: 'interrupted',
        changed: true,
      });
      expect(await turn(key, {})).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2', newSession: false });
      // A second sweep finds nothing more to do for the interrupted one.
      expect((await watchdog.sweep()).interrupted).not.toContain(id);
    });
  },
  (backend) => ({ clock: clockOf(backend), env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0', RUNTIME_HEARTBEAT_TIMEOUT_SECONDS: '300' } }),
);
