// A conversation reset or suspend ends its runtime binding (Hermes drops the cached agent on /new; CliGate's /new unbinds the thread).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeBindingStreamName } from '../../src/events/runtime/runtimeBindingEvents.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`conversation reset and suspend end the runtime binding: ${backend}`, () => {
    let service: TestApp;
    let chat = 0;

    const conversation = async () => {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'web', chatType: 'dm', chatId: `${backend}-end-${++chat}` } },
      });
      return { key: resolved.body.sessionKey as string, sessionId: resolved.body.sessionId as string };
    };
    const turn = (key: string) =>
      service.request('POST', `/v1/conversations/${enc(key)}/runtime/turns`, { body: { provider: 'codex', model: 'gpt-5', input: 'go' } });
    const report = (id: string, body: object) => service.request('POST', `/v1/runtime-sessions/${id}/events`, { body });
    const runtimeOf = async (key: string) => (await service.request('GET', `/v1/conversations/${enc(key)}/runtime`)).body;
    const act = (key: string, step: 'reset' | 'suspend' | 'switch', body?: object) =>
      service.request('POST', `/v1/conversations/${enc(key)}/${step}`, body === undefined ? {} : { body });
    /** The last event of the conversation's runtime-binding stream, read from the log. */
    const lastBindingEvent = async (key: string) => (await service.infrastructure.eventStore.readStream(runtimeBindingStreamName(key))).at(-1);
    /** A conversation whose runtime session finished its turn (bound, idle). */
    const idleRuntime = async () => {
      const { key, sessionId } = await conversation();
      const runtimeSessionId = (await turn(key)).body.runtimeSessionId as string;
      await report(runtimeSessionId, { type: 'completed' });
      expect((await runtimeOf(key)).state).toBe('idle');
      return { key, sessionId, runtimeSessionId };
    };

    beforeAll(async () => {
      service = await startTestApp(backend, { env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('reset unbinds the runtime session (reason conversation_reset): the next runtime turn starts a new thread', async () => {
      const { key, sessionId, runtimeSessionId } = await idleRuntime();
      const reset = await act(key, 'reset');
      expect(reset.status).toBe(200);
      expect(reset.body).toMatchObject({ previousSessionId: sessionId, detachedRuntimeSessionId: runtimeSessionId, interruptedTurnId: null });
      expect(await runtimeOf(key)).toMatchObject({ state: 'unbound', runtimeSessionId: null, previousRuntimeSessionId: runtimeSessionId });
      expect(await lastBindingEvent(key)).toMatchObject({ type: 'RuntimeDetached', data: { runtimeSessionId, reason: 'conversation_reset' } });
      const next = await turn(key);
      expect(next.body).toMatchObject({ newSession: true, reason: 'new' });
      expect(next.body.runtimeSessionId).not.toBe(runtimeSessionId);
    });

    it('suspend unbinds it too (reason conversation_suspended); switch rebinds nothing', async () => {
      const suspended = await idleRuntime();
      const answer = await act(suspended.key, 'suspend', { reason: 'stop' });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ detachedRuntimeSessionId: suspended.runtimeSessionId });
      expect((await runtimeOf(suspended.key)).state).toBe('unbound');
      expect(await lastBindingEvent(suspended.key)).toMatchObject({ type: 'RuntimeDetached', data: { reason: 'conversation_suspended' } });

      const switched = await idleRuntime();
      await act(switched.key, 'reset', { keepRuntime: true });
      const back = await act(switched.key, 'switch', { sessionId: switched.sessionId });
      expect(back.status).toBe(200);
      expect(back.body.sessionId).toBe(switched.sessionId);
      expect(await runtimeOf(switched.key)).toMatchObject({ state: 'idle', runtimeSessionId: switched.runtimeSessionId });
    });

    it('keepRuntime: true keeps the binding on reset and on suspend', async () => {
      const { key, runtimeSessionId } = await idleRuntime();
      const reset = await act(key, 'reset', { keepRuntime: true });
      expect(reset.status).toBe(200);
      expect(reset.body.detachedRuntimeSessionId).toBeNull();
      const suspended = await act(key, 'suspend', { keepRuntime: true });
      expect(suspended.status).toBe(200);
      expect(suspended.body.detachedRuntimeSessionId).toBeNull();
      expect(await runtimeOf(key)).toMatchObject({ state: 'idle', runtimeSessionId });
      expect((await turn(key)).body).toMatchObject({ runtimeSessionId, newSession: false, reason: 'reused' });
    });

    it('a runtime turn in flight makes reset answer 409 RUNTIME_BUSY and write nothing; force interrupts it first', async () => {
      const { key, sessionId } = await conversation();
      const runtimeSessionId = (await turn(key)).body.runtimeSessionId as string;
      await report(runtimeSessionId, { type: 'started' });
      const head = await service.lastPosition();

      const busy = await act(key, 'reset');
      expect(busy.status).toBe(409);
      expect(busy.body.error).toMatchObject({ code: 'RUNTIME_BUSY', details: { runtimeSessionId, currentTurnId: 'turn_1' } });
      expect(await service.lastPosition()).toBe(head);
      expect((await service.request('GET', `/v1/conversations/${enc(key)}`)).body.sessionId).toBe(sessionId);

      const forced = await act(key, 'reset', { force: true });
      expect(forced.status).toBe(200);
      expect(forced.body).toMatchObject({ previousSessionId: sessionId, detachedRuntimeSessionId: runtimeSessionId, interruptedTurnId: 'turn_1' });
      expect(forced.body.sessionId).not.toBe(sessionId);
      const runtime = (await service.request('GET', `/v1/runtime-sessions/${runtimeSessionId}`)).body;
      expect(runtime).toMatchObject({
        state: 'interrupted',
        lastError: { kind: 'interrupted', reason: 'conversation_reset', turnId: 'turn_1' },
        boundConversations: [],
      });
      expect((await runtimeOf(key)).state).toBe('unbound');
      // The worker's late report is refused like any report to an interrupted turn.
      expect((await report(runtimeSessionId, { type: 'completed' })).body.error.code).toBe('RUNTIME_INTERRUPTED');
    });

    it('refuses a malformed reset or suspend body with 400 and writes nothing', async () => {
      const { key } = await idleRuntime();
      const head = await service.lastPosition();
      for (const [step, body] of [
        ['reset', { keepRuntime: 'yes' }],
        ['reset', { force: 1 }],
        ['reset', { unknown: true }],
        ['suspend', { keepRuntime: 'no' }],
      ] as const) {
        const refused = await act(key, step, body);
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      }
      expect(await service.lastPosition()).toBe(head);
    });
  });
}
