// Runtime sessions over real HTTP: sticky binding, drift, /new, /detach, approvals and questions, stale detection with a ManualClock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { RuntimeWatchdog } from '../../src/modules/runtime/runtimeWatchdog.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`runtime sessions: ${backend}`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    let chat = 0;

    const conversation = async () => {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'web', chatType: 'dm', chatId: `${backend}-rt-${++chat}` } },
      });
      return resolved.body.sessionKey as string;
    };
    const turn = (key: string, body: object) =>
      service.request('POST', `/v1/conversations/${enc(key)}/runtime/turns`, { body: { provider: 'codex', model: 'gpt-5', input: 'go', ...body } });
    const runtimeOf = async (key: string) => (await service.request('GET', `/v1/conversations/${enc(key)}/runtime`)).body;
    const report = (id: string, body: object) => service.request('POST', `/v1/runtime-sessions/${id}/events`, { body });

    beforeAll(async () => {
      service = await startTestApp(backend, { clock, env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0', RUNTIME_HEARTBEAT_TIMEOUT_SECONDS: '300' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('binds a new runtime session on the first turn, refuses a second while one runs, and stays bound after completed', async () => {
      const key = await conversation();
      expect((await runtimeOf(key)).state).toBe('unbound');
      const first = await turn(key, { input: 'fix the build' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        sessionKey: key,
        turnId: 'turn_1',
        newSession: true,
        reason: 'new',
        state: 'cold',
        bindingState: 'running',
        runtimeState: 'starting',
      });
      const id = first.body.runtimeSessionId as string;
      expect(id).toMatch(/^rt_[0-9a-f]{16}$/);

      const busy = await turn(key, { input: 'and also' });
      expect(busy.status).toBe(409);
      expect(busy.body.error.code).toBe('RUNTIME_BUSY');

      expect((await report(id, { type: 'started', turnId: 'turn_1' })).body).toMatchObject({ state: 'running', changed: true });
      expect((await report(id, { type: 'progress', message: 'compiling' })).body.state).toBe('running');
      const done = await report(id, { type: 'completed', output: { summary: 'fixed' } });
      expect(done.body).toMatchObject({ state: 'idle', currentTurnId: null });

      const binding = await runtimeOf(key);
      expect(binding).toMatchObject({ state: 'idle', runtimeSessionId: id, provider: 'codex', model: 'gpt-5', reason: 'new' });
      const followUp = await turn(key, { input: 'now the tests' });
      expect(followUp.body).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2', newSession: false, reason: 'reused', state: 'warm' });
    });

    it('stays bound after a failed turn', async () => {
      const key = await conversation();
      const id = (await turn(key, {})).body.runtimeSessionId;
      const failed = await report(id, { type: 'failed', error: 'tool crashed' });
      expect(failed.body.state).toBe('idle');
      expect(await runtimeOf(key)).toMatchObject({
        state: 'idle',
        runtimeSessionId: id,
        runtime: { lastError: { kind: 'turn_failed', message: 'tool crashed' } },
      });
      expect((await turn(key, {})).body).toMatchObject({ runtimeSessionId: id, newSession: false });
    });

    it('drift to another provider or model binds a new runtime session and leaves a status note', async () => {
      const key = await conversation();
      const first = (await turn(key, {})).body;
      await report(first.runtimeSessionId, { type: 'completed' });
      const drifted = await turn(key, { provider: 'claude', model: 'sonnet' });
      expect(drifted.body).toMatchObject({
        newSession: true,
        reason: 'drift',
        previousRuntimeSessionId: first.runtimeSessionId,
        note: 'provider changed from codex to claude; model changed from gpt-5 to sonnet: started a new runtime session',
      });
      expect(drifted.body.runtimeSessionId).not.toBe(first.runtimeSessionId);
      expect((await runtimeOf(key)).note).toMatchObject({ note: drifted.body.note, runtimeSessionId: drifted.body.runtimeSessionId });
      // The note is in the conversation's transcript too, as a system message that is not a turn.
      const { sessionId } = (await service.request('GET', `/v1/conversations/${enc(key)}`)).body;
      const transcript = (await service.request('GET', `/v1/sessions/${sessionId}/transcript`)).body.messages;
      expect(transcript.at(-1)).toMatchObject({ role: 'system', content: drifted.body.note, metadata: { status: 'runtime_drift' } });
      expect((await service.request('GET', `/v1/sessions/${sessionId}`)).body.turnCount).toBe(0);
      // The old session is no longer bound to anything.
      expect((await service.request('GET', `/v1/runtime-sessions/${first.runtimeSessionId}`)).body.boundConversations).toEqual([]);
    });

    it('newSession forces a new runtime session (reason new_command)', async () => {
      const key = await conversation();
      const first = (await turn(key, {})).body;
      await report(first.runtimeSessionId, { type: 'completed' });
      expect((await turn(key, { newSession: true })).body).toMatchObject({
        newSession: true,
        reason: 'new_command',
        previousRuntimeSessionId: first.runtimeSessionId,
      });
    });

    it('/new unbinds; /new <task> and /new claude <task> start a new session at once; /detach unbinds only', async () => {
      const key = await conversation();
      const first = (await turn(key, {})).body;
      await report(first.runtimeSessionId, { type: 'completed' });
      const path = (step: string) => `/v1/conversations/${enc(key)}/runtime/${step}`;

      const unbound = await service.request('POST', path('new'), { body: {} });
      expect(unbound.body).toMatchObject({ state: 'unbound', detachedRuntimeSessionId: first.runtimeSessionId, changed: true });
      expect((await runtimeOf(key)).state).toBe('unbound');

      const refused = await service.request('POST', path('new'), { body: { task: 'write docs' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('PROVIDER_REQUIRED');

      const task = await service.request('POST', path('new'), { body: { task: 'write docs', provider: 'codex' } });
      expect(task.status).toBe(200);
      expect(task.body).toMatchObject({ newSession: true, reason: 'task', provider: 'codex', model: 'default', bindingState: 'running', turnId: 'turn_1' });
      await report(task.body.runtimeSessionId, { type: 'completed' });

      const claude = await service.request('POST', path('new'), { body: { task: 'review it', provider: 'claude', model: 'opus' } });
      expect(claude.body).toMatchObject({ reason: 'task', provider: 'claude', model: 'opus', previousRuntimeSessionId: task.body.runtimeSessionId });

      const detached = await service.request('POST', path('detach'), { body: {} });
      expect(detached.body).toMatchObject({ state: 'unbound', detachedRuntimeSessionId: claude.body.runtimeSessionId, changed: true });
      expect((await service.request('POST', path('detach'), { body: {} })).body.changed).toBe(false);
      // The detached session and its turn in flight are still there.
      expect((await service.request('GET', `/v1/runtime-sessions/${claude.body.runtimeSessionId}`)).body).toMatchObject({
        state: 'starting',
        boundConversations: [],
      });
    });

    it('approvals and questions: pending, answered through the API, cleared by completed', async () => {
      const key = await conversation();
      const id = (await turn(key, {})).body.runtimeSessionId;
      await report(id, { type: 'started' });
      expect((await report(id, { type: 'approval_request', approvalId: 'appr-1', details: { command: 'npm publish' } })).body.state).toBe('waiting_approval');
      expect((await runtimeOf(key)).state).toBe('waiting_approval');
      const pending = await service.request('GET', `/v1/conversations/${enc(key)}/runtime/pending`);
      expect(pending.body).toMatchObject({
        runtimeSessionId: id,
        approvals: [{ approvalId: 'appr-1', turnId: 'turn_1', details: { command: 'npm publish' } }],
        questions: [],
      });

      const approved = await service.request('POST', `/v1/runtime-sessions/${id}/approvals/appr-1`, { body: { decision: 'allow', remember: 'session' } });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ decision: 'allow', remember: 'session', state: 'running', changed: true });
      const conflicting = await service.request('POST', `/v1/runtime-sessions/${id}/approvals/appr-1`, { body: { decision: 'deny' } });
      expect(conflicting.status).toBe(409);
      expect((await service.request('POST', `/v1/runtime-sessions/${id}/approvals/nope`, { body: { decision: 'deny' } })).status).toBe(404);

      await report(id, { type: 'question', questionId: 'q-1', details: { text: 'which branch?' } });
      expect((await runtimeOf(key)).state).toBe('waiting_user');
      const answered = await service.request('POST', `/v1/runtime-sessions/${id}/questions/q-1`, { body: { answer: 'main' } });
      expect(answered.body).toMatchObject({ questionId: 'q-1', state: 'running', changed: true });

      await report(id, { type: 'approval_request', approvalId: 'appr-2', details: {} });
      await report(id, { type: 'completed' });
      expect((await service.request('GET', `/v1/conversations/${enc(key)}/runtime/pending`)).body).toMatchObject({ approvals: [], questions: [] });

      const record = (await service.request('GET', `/v1/runtime-sessions/${id}`)).body;
      expect(record).toMatchObject({
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
      const id = (await turn(key, {})).body.runtimeSessionId;
      await report(id, { type: 'completed' });
      const late = await report(id, { type: 'progress' });
      expect([late.status, late.body.error.code]).toEqual([409, 'NO_TURN_IN_FLIGHT']);
      expect((await report('rt_0000000000000000', { type: 'started' })).body.error.code).toBe('RUNTIME_SESSION_NOT_FOUND');
      expect((await service.request('GET', '/v1/runtime-sessions/rt_0000000000000000')).status).toBe(404);
      expect((await service.request('GET', '/v1/runtime-sessions/nope')).body.error.code).toBe('INVALID_RUNTIME_SESSION_ID');
      expect((await report(id, { type: 'teleport' })).status).toBe(400);
      const unknown = await turn('agent:main:web:dm:nobody', {});
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
    });

    it('stale detection: a turn with no worker event past the heartbeat timeout is interrupted; the binding stays and a follow-up resumes it', async () => {
      const watchdog = service.app.get(RuntimeWatchdog);
      const key = await conversation();
      const id = (await turn(key, {})).body.runtimeSessionId;
      await report(id, { type: 'started' });
      await report(id, { type: 'question', questionId: 'q-stale', details: {} });
      const lively = await conversation();
      const livelyId = (await turn(lively, {})).body.runtimeSessionId;

      clock.advance(200_000);
      await report(livelyId, { type: 'progress' });
      clock.advance(101_000);
      const swept = await watchdog.sweep();
      expect(swept.interrupted).toContain(id);
      expect(swept.interrupted).not.toContain(livelyId);

      const record = (await service.request('GET', `/v1/runtime-sessions/${id}`)).body;
      expect(record).toMatchObject({
        state: 'interrupted',
        lastError: { kind: 'interrupted', reason: 'heartbeat_timeout', turnId: 'turn_1' },
        turns: [{ turnId: 'turn_1', status: 'interrupted' }],
        pendingQuestions: [{ questionId: 'q-stale' }],
      });
      expect((await runtimeOf(key)).state).toBe('idle');
      expect((await report(id, { type: 'completed' })).body.error.code).toBe('RUNTIME_INTERRUPTED');
      // The question survives and stays answerable; the next turn continues the same runtime session.
      expect((await service.request('POST', `/v1/runtime-sessions/${id}/questions/q-stale`, { body: { answer: 'yes' } })).body).toMatchObject({
        state: 'interrupted',
        changed: true,
      });
      expect((await turn(key, {})).body).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2', newSession: false });
      // A second sweep finds nothing more to do for the interrupted one.
      expect((await watchdog.sweep()).interrupted).not.toContain(id);
    });
  });
}
