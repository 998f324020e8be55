// An interrupting message reaches the running runtime turn: InterruptRequested, shown and streamed; the next turn waits for the worker or the heartbeat timeout.
import { expect, it } from 'vitest';
import type { WorkerEvent } from '../../src/client/index.js';
import { RuntimeWatchdog } from '../../src/modules/runtime/runtimeWatchdog.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { apiErrorOf, forEachBackend } from '../support/forEachBackend.js';
import { readServerSentEvents } from '../support/serverSentEvents.js';
import { telegramSource } from '../support/sources.js';

const enc = encodeURIComponent;

const clockOf = clockPerBackend(new Date('2026-06-01T12:00:00Z'));

forEachBackend(
  'runtime interrupts',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    let chat = 0;

    const conversation = async () => (await ledger.client.resolveSession({ source: telegramSource(`${ledger.backend}-interrupt-${++chat}`) })).sessionKey;
    const turn = (key: string, input = 'go') => ledger.client.runtimeTurn(key, { provider: 'codex', model: 'gpt-5', input });
    const report = (id: string, event: WorkerEvent) => ledger.client.reportWorkerEvent(id, event);
    const enqueue = (key: string, id: string, mode: 'interrupt' | 'queue') => ledger.client.enqueue(key, { message: { id, text: `message ${id}` }, mode });
    const runtimeOf = (key: string) => ledger.client.runtimeBinding(key);
    const runtimeSession = (id: string) => ledger.client.getRuntimeSession(id);

    it('records InterruptRequested once per running turn, shows it on the binding and the runtime session, and streams it', async () => {
      const start = await ledger.service.lastPosition();
      const key = await conversation();
      const id = (await turn(key)).runtimeSessionId;
      await report(id, { type: 'started' });

      const first = await enqueue(key, 'stop-1', 'interrupt');
      expect(first.interruptRequested).toEqual({ runtimeSessionId: id, turnId: 'turn_1', messageId: 'stop-1', requestedAt: clock.now().toISOString() });
      // A second follow-up waits as a turn of its own, and the turn was already asked.
      const second = await enqueue(key, 'stop-2', 'interrupt');
      expect(second).toMatchObject({ placement: 'overflow', coalescedInto: null, interruptRequested: { turnId: 'turn_1', messageId: 'stop-1' } });

      const binding = await runtimeOf(key);
      expect(binding).toMatchObject({ state: 'running', runtime: { currentTurnId: 'turn_1', interruptRequested: { turnId: 'turn_1', messageId: 'stop-1' } } });
      expect(await runtimeSession(id)).toMatchObject({ state: 'running', currentTurnId: 'turn_1', interruptRequested: { messageId: 'stop-1' } });
      // A worker that reports learns of it in the answer.
      expect((await report(id, { type: 'progress', message: 'half way' })).interruptRequested).toMatchObject({ turnId: 'turn_1' });

      // Raw: the stream as sent, and that nothing more arrives within the wait.
      const streamed = await readServerSentEvents(
        `${ledger.service.url}/v1/events/stream?types=InterruptRequested&fromPosition=${start}&sessionKey=${enc(key)}`,
        {
          count: 2,
          timeoutMs: 1_500,
        },
      );
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
      const id = (await turn(key)).runtimeSessionId;
      await report(id, { type: 'started' });
      await enqueue(key, 'stop', 'interrupt');

      const early = await apiErrorOf(turn(key, 'the follow-up'));
      expect(early.status).toBe(409);
      expect({ code: early.code, details: early.details }).toMatchObject({
        code: 'RUNTIME_BUSY',
        details: { currentTurnId: 'turn_1', interruptRequested: { messageId: 'stop' } },
      });

      await report(id, { type: 'failed', error: 'stopped: the user interrupted' });
      expect((await runtimeOf(key)).runtime?.interruptRequested).toBeNull();
      const next = await turn(key, 'the follow-up');
      expect(next).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2', newSession: false });
      expect((await runtimeSession(id)).turns).toMatchObject([
        { turnId: 'turn_1', status: 'failed' },
        { turnId: 'turn_2', status: 'in_flight' },
      ]);
    });

    it('a worker that never answers is interrupted by the heartbeat timeout, then the next turn starts', async () => {
      const watchdog = ledger.service.app.get(RuntimeWatchdog);
      const key = await conversation();
      const id = (await turn(key)).runtimeSessionId;
      await report(id, { type: 'started' });
      await enqueue(key, 'stop', 'interrupt');
      // The request is not a sign of life: the heartbeat still counts from the worker's last report.
      clock.advance(301_000);
      expect((await watchdog.sweep()).interrupted).toContain(id);
      expect(await runtimeSession(id)).toMatchObject({
        state: 'interrupted',
        interruptRequested: null,
        lastError: { reason: 'heartbeat_timeout', turnId: 'turn_1' },
      });
      expect(await turn(key, 'the follow-up')).toMatchObject({ runtimeSessionId: id, turnId: 'turn_2' });
    });

    it('asks nothing of a turn for a queued message, with no runtime bound, or with no turn running', async () => {
      const key = await conversation();
      expect((await enqueue(key, 'unbound', 'interrupt')).interruptRequested).toBeNull();
      const id = (await turn(key)).runtimeSessionId;
      expect((await enqueue(key, 'queued', 'queue')).interruptRequested).toBeNull();
      expect((await runtimeOf(key)).runtime?.interruptRequested).toBeNull();
      await report(id, { type: 'completed', output: {} });
      expect((await enqueue(key, 'idle', 'interrupt')).interruptRequested).toBeNull();
      expect((await runtimeSession(id)).interruptRequested).toBeNull();
    });
  },
  (backend) => ({ clock: clockOf(backend), env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0', RUNTIME_HEARTBEAT_TIMEOUT_SECONDS: '300' } }),
);
