// A conversation reset or suspend ends its runtime binding (Hermes drops the cached agent on /new; CliGate's /new unbinds the thread).
import { expect, it } from 'vitest';
import type { WorkerEvent } from '../../src/client/index.js';
import { runtimeBindingStreamName } from '../../src/events/runtime/runtimeBindingEvents.js';
import { apiErrorOf, forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

const enc = encodeURIComponent;

forEachBackend(
  'conversation reset and suspend end the runtime binding',
  (ledger) => {
    let chat = 0;

    const conversation = async () => {
      const resolved = await ledger.client.resolveSession({ source: sourceOn('web', `${ledger.backend}-end-${++chat}`) });
      return { key: resolved.sessionKey, sessionId: resolved.sessionId };
    };
    const turn = (key: string) => ledger.client.runtimeTurn(key, { provider: 'codex', model: 'gpt-5', input: 'go' });
    const report = (id: string, event: WorkerEvent) => ledger.client.reportWorkerEvent(id, event);
    const runtimeOf = (key: string) => ledger.client.runtimeBinding(key);
    /** The last event of the conversation's runtime-binding stream, read from the log. */
    const lastBindingEvent = async (key: string) => (await ledger.service.infrastructure.eventStore.readStream(runtimeBindingStreamName(key))).at(-1);
    /** A conversation whose runtime session finished its turn (bound, idle). */
    const idleRuntime = async () => {
      const { key, sessionId } = await conversation();
      const { runtimeSessionId } = await turn(key);
      await report(runtimeSessionId, { type: 'completed' });
      expect((await runtimeOf(key)).state).toBe('idle');
      return { key, sessionId, runtimeSessionId };
    };

    it('reset unbinds the runtime session (reason conversation_reset): the next runtime turn starts a new thread', async () => {
      const { key, sessionId, runtimeSessionId } = await idleRuntime();
      const reset = await ledger.client.resetConversation(key);
      expect(reset).toMatchObject({ previousSessionId: sessionId, detachedRuntimeSessionId: runtimeSessionId, interruptedTurnId: null });
      expect(await runtimeOf(key)).toMatchObject({ state: 'unbound', runtimeSessionId: null, previousRuntimeSessionId: runtimeSessionId });
      expect(await lastBindingEvent(key)).toMatchObject({ type: 'RuntimeDetached', data: { runtimeSessionId, reason: 'conversation_reset' } });
      const next = await turn(key);
      expect(next).toMatchObject({ newSession: true, reason: 'new' });
      expect(next.runtimeSessionId).not.toBe(runtimeSessionId);
    });

    it('suspend unbinds it too (reason conversation_suspended); switch rebinds nothing', async () => {
      const { client } = ledger;
      const suspended = await idleRuntime();
      const answer = await client.suspendConversation(suspended.key, { reason: 'stop' });
      expect(answer).toMatchObject({ detachedRuntimeSessionId: suspended.runtimeSessionId });
      expect((await runtimeOf(suspended.key)).state).toBe('unbound');
      expect(await lastBindingEvent(suspended.key)).toMatchObject({ type: 'RuntimeDetached', data: { reason: 'conversation_suspended' } });

      const switched = await idleRuntime();
      await client.resetConversation(switched.key, { keepRuntime: true });
      const back = await client.switchSession(switched.key, switched.sessionId);
      expect(back.sessionId).toBe(switched.sessionId);
      expect(await runtimeOf(switched.key)).toMatchObject({ state: 'idle', runtimeSessionId: switched.runtimeSessionId });
    });

    it('keepRuntime: true keeps the binding on reset and on suspend', async () => {
      const { client } = ledger;
      const { key, runtimeSessionId } = await idleRuntime();
      const reset = await client.resetConversation(key, { keepRuntime: true });
      expect(reset.detachedRuntimeSessionId).toBeNull();
      const suspended = await client.suspendConversation(key, { keepRuntime: true });
      expect(suspended.detachedRuntimeSessionId).toBeNull();
      expect(await runtimeOf(key)).toMatchObject({ state: 'idle', runtimeSessionId });
      expect(await turn(key)).toMatchObject({ runtimeSessionId, newSession: false, reason: 'reused' });
    });

    it('a runtime turn in flight makes reset answer 409 RUNTIME_BUSY and write nothing; force interrupts it first', async () => {
      const { client, service } = ledger;
      const { key, sessionId } = await conversation();
      const { runtimeSessionId } = await turn(key);
      await report(runtimeSessionId, { type: 'started' });
      const head = await service.lastPosition();

      const busy = await apiErrorOf(client.resetConversation(key));
      expect(busy.status).toBe(409);
      expect({ code: busy.code, details: busy.details }).toMatchObject({ code: 'RUNTIME_BUSY', details: { runtimeSessionId, currentTurnId: 'turn_1' } });
      expect(await service.lastPosition()).toBe(head);
      expect((await client.getConversation(key)).sessionId).toBe(sessionId);

      const forced = await client.resetConversation(key, { force: true });
      expect(forced).toMatchObject({ previousSessionId: sessionId, detachedRuntimeSessionId: runtimeSessionId, interruptedTurnId: 'turn_1' });
      expect(forced.sessionId).not.toBe(sessionId);
      expect(await client.getRuntimeSession(runtimeSessionId)).toMatchObject({
        state: 'interrupted',
        lastError: { kind: 'interrupted', reason: 'conversation_reset', turnId: 'turn_1' },
        boundConversations: [],
      });
      expect((await runtimeOf(key)).state).toBe('unbound');
      // The worker's late report is refused like any report to an interrupted turn.
      expect((await refusalOf(report(runtimeSessionId, { type: 'completed' }))).code).toBe('RUNTIME_INTERRUPTED');
    });

    it('refuses a malformed reset or suspend body with 400 and writes nothing', async () => {
      const { key } = await idleRuntime();
      const head = await ledger.service.lastPosition();
      // Raw: bodies the typed client never sends.
      for (const [step, body] of [
        ['reset', { keepRuntime: 'yes' }],
        ['reset', { force: 1 }],
        ['reset', { unknown: true }],
        ['suspend', { keepRuntime: 'no' }],
      ] as const) {
        const refused = await ledger.service.request('POST', `/v1/conversations/${enc(key)}/${step}`, { body });
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      }
      expect(await ledger.service.lastPosition()).toBe(head);
    });
  },
  { env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0' } },
);
