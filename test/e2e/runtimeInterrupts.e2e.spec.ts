// An interrupting message reaches the running runtime turn: InterruptRequested, shown and streamed; the next turn waits for the worker or the heartbeat timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { RuntimeWatchdog } from '../../src/modules/runtime/runtimeWatchdog.js';
import { readServerSentEvents } from '../support/serverSentEvents.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`runtime interrupts: ${backend}`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    let chat = 0;

    const conversation = async () => {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'telegram', chatType: 'dm', chatId: `${backend}-interrupt-${++chat}` } },
      });
      return resolved.body.sessionKey as string;
    };
    const turn = (key: string, input = 'go') =>
      service.request('POST', `/v1/conversations/${enc(key)}/runtime/turns`, { body: { provider: 'codex', model: 'gpt-5', input } });
    const report = (id: string, body: object) => service.request('POST', `/v1/runtime-sessions/${id}/events`, { body });
    const enqueue = (key: string, id: string, mode: 'interrupt' | 'queue') =>
      service.request('POST', `/v1/conversations/${enc(key)}/queue`, { body: { message: { id, text: `message ${id}` }, mode } });
    const runtimeOf = async (key: string) => (await service.request('GET', `/v1/conversations/${enc(key)}/runtime`)).body;

    beforeAll(async () => {
      service = await startTestApp(backend, { clock, env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0', RUNTIME_HEARTBEAT_TIMEOUT_SECONDS: '300' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('records InterruptRequested once per running turn, shows it on the binding and the runtime session, and streams it', async () => {
      const start = await service.lastPosition();
      const key = await conversation();
      const id = (await turn(key)).body.runtimeSessionId as string;
      await report(id, { type: 'started' });

      const first = await enqueue(key, 'stop-1', 'interrupt');
      expect(first.status).toBe(202);
      expect(first.body.interruptRequested).toEqual({ runtimeSessionId: id, turnId: 'turn_1', messageId: 'stop-1', requestedAt: clock.now().toISOString() });
      // A second follow-up waits as a turn of its own, and the turn was already asked.
      const second = await enqueue(key, 'stop-2', 'interrupt');
      expect(second.body).toMatchObject({ placement: 'overflow', coalescedInto: null, interruptRequested: { turnId: 'turn_1', messageId: 'stop-1' } });

      const binding = await runtimeOf(key);
      expect(binding).toMatchObject({ state: 'running', runtime: { currentTurnId: 'turn_1', interruptRequested: { turnId: 'turn_1', messageId: 'stop-1' } } });
      const record = (await service.request('GET', `/v1/runtime-sessions/${id}`)).body;
      expect(record).toMatchObject({ state: 'running', currentTurnId: 'turn_1', interruptRequested: { messageId: 'stop-1' } });
      // A worker that reports learns of it in the answer.
      expect((await report(id, { type: 'progress', message: 'half way' })).body.interruptRequested).toMatchObject({ turnId: 'turn_1' });

      const streamed = await readServerSentEvents(`${service.url}/v1/events/stream?types=InterruptRequested&fromPosition=${start}&sessionKey=${enc(key)}`, {
        count: 2,
        timeoutMs: 1_500,
      });
      expect(streamed.events.map((event) => JSON.parse(event.data))).toEqual([
        expect.objectContaining({
          type: 'InterruptRequested',
          streamName: `runtime-${id}`,
          data: { turnId: 'turn_1', messageId: 'stop-1', at: expect.any(String) },
        }),
      ]);
    });

    it('the next turn starts only after the worker reports failed or completed', async () => {
      const key = await conversation();
      const id = (await turn(key)).body.runtimeSessionId as string;
      await report(id, { type: 'started' });
      await enqueue(key, 'stop', 'interrupt');

      const early = await turn(key, 'the follow-up');
      expect(early.status).toBe(409);
      expect(early.body.error).toMatchObject({ code: 'RUNTIME_BUSY', details: { currentTurnId: 'turn_1', interruptRequested: { messageId: 'stop' } } });

      expect((await report(id, { type: 'failed', error: 'stopped: the user interrupted' })).status).toBe(200);
      expect((await runtimeOf(key)).runtime.interruptRequested).toBeNull();
      const next = await turn(key, 'the follow-up');
      expect(next.status).toBe(201);
      expect(next.body).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2', newSession: false });
      expect((await service.request('GET', `/v1/runtime-sessions/${id}`)).body.turns).toMatchObject([
        { turnId: 'turn_1', status: 'failed' },
        { turnId: 'turn_2', status: 'in_flight' },
      ]);
    });

    it('a worker that never answers is interrupted by the heartbeat timeout, then the next turn starts', async () => {
      const watchdog = service.app.get(RuntimeWatchdog);
      const key = await conversation();
      const id = (await turn(key)).body.runtimeSessionId as string;
      await report(id, { type: 'started' });
      await enqueue(key, 'stop', 'interrupt');
      // The request is not a sign of life: the heartbeat still counts from the worker's last report.
      clock.advance(301_000);
      expect((await watchdog.sweep()).interrupted).toContain(id);
      expect((await service.request('GET', `/v1/runtime-sessions/${id}`)).body).toMatchObject({
        state: 'interrupted',
        interruptRequested: null,
        lastError: { reason: 'heartbeat_timeout', turnId: 'turn_1' },
      });
      expect((await turn(key, 'the follow-up')).body).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2' });
    });

    it('asks nothing of a turn for a queued message, with no runtime bound, or with no turn running', async () => {
      const key = await conversation();
      expect((await enqueue(key, 'unbound', 'interrupt')).body.interruptRequested).toBeNull();
      const id = (await turn(key)).body.runtimeSessionId as string;
      expect((await enqueue(key, 'queued', 'queue')).body.interruptRequested).toBeNull();
      expect((await runtimeOf(key)).runtime.interruptRequested).toBeNull();
      await report(id, { type: 'completed', output: {} });
      expect((await enqueue(key, 'idle', 'interrupt')).body.interruptRequested).toBeNull();
      expect((await service.request('GET', `/v1/runtime-sessions/${id}`)).body.interruptRequested).toBeNull();
    });
  });
}
