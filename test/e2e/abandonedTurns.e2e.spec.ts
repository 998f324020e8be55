// A started turn nobody records is abandoned: by the watchdog after TURN_IN_FLIGHT_TIMEOUT_SECONDS, and by its gateway's next start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { RuntimeWatchdog } from '../../src/modules/runtime/runtimeWatchdog.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

for (const backend of e2eBackends()) {
  describe(`abandoned turns: ${backend}`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-07-01T08:00:00Z'));
    let chat = 0;

    /** A conversation's session with one completed turn (checkpoint cp-1) and a second turn started. */
    const pinnedSession = async (gatewayId = 'gw-turns') => {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'web', chatType: 'dm', chatId: `${backend}-abandon-${++chat}` }, gatewayId },
      });
      const { sessionId } = resolved.body;
      const turn = await service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'hello' }] } });
      expect(turn.body.checkpointId).toBe('cp-1');
      const started = await service.request('POST', `/v1/sessions/${sessionId}/turns/start`);
      expect(started.status).toBe(201);
      expect((await rollback(sessionId)).body.error.code).toBe('TURN_IN_FLIGHT');
      return { sessionId: sessionId as string, sessionKey: resolved.body.sessionKey as string, startedAt: clock.now().toISOString() };
    };
    const rollback = (sessionId: string) => service.request('POST', `/v1/sessions/${sessionId}/rollback`, { body: { checkpointId: 'cp-1' } });
    const eventTypes = async (sessionId: string) =>
      (await service.request('GET', `/v1/sessions/${sessionId}/events`)).body.events.map((event: { type: string }) => event.type);

    beforeAll(async () => {
      // The default TURN_IN_FLIGHT_TIMEOUT_SECONDS (1800) is what is tested: nothing sets it.
      service = await startTestApp(backend, { clock, env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('the watchdog abandons a turn in flight past the timeout (reason timeout); rollback then works and the turn shows in events, state and record', async () => {
      const watchdog = service.app.get(RuntimeWatchdog);
      const stale = await pinnedSession();
      clock.advance(1_000_000);
      const fresh = await pinnedSession();

      clock.advance(800_001); // stale: 1800.001 s in flight; fresh: 800.001 s
      const swept = await watchdog.sweep();
      expect(swept.abandonedTurns).toContain(stale.sessionId);
      expect(swept.abandonedTurns).not.toContain(fresh.sessionId);

      const summary = (await service.request('GET', `/v1/sessions/${stale.sessionId}`)).body;
      expect(summary).toMatchObject({
        turnInFlight: null,
        turnCount: 1,
        lastAbandonedTurn: { turnIndex: 2, startedAt: stale.startedAt, abandonedAt: clock.now().toISOString(), reason: 'timeout' },
      });
      expect((await eventTypes(stale.sessionId)).slice(-2)).toEqual(['TurnStarted', 'TurnAbandoned']);
      const events = (await service.request('GET', `/v1/sessions/${stale.sessionId}/events`)).body.events;
      expect(events.at(-1)).toMatchObject({
        type: 'TurnAbandoned',
        data: { turnIndex: 2, startedAt: stale.startedAt, reason: 'timeout' },
        metadata: { actor: 'runtime-watchdog' },
      });
      const record = await service.request('GET', `/v1/sessions/${stale.sessionId}/record?minPosition=${events.at(-1).position}`);
      expect(record.body).toMatchObject({ turnInFlightIndex: null, turnInFlightSince: null, lastAbandonedTurn: { turnIndex: 2, reason: 'timeout' } });

      const rolledBack = await rollback(stale.sessionId);
      expect(rolledBack.status).toBe(200);
      // The fresh one is still pinned, and its record says so.
      expect((await rollback(fresh.sessionId)).body.error.code).toBe('TURN_IN_FLIGHT');
      expect((await service.request('GET', `/v1/sessions/${fresh.sessionId}/record`)).body).toMatchObject({
        turnInFlightIndex: 2,
        turnInFlightSince: fresh.startedAt,
        lastAbandonedTurn: null,
      });
      // The turn index stays free: the next start takes it again; a second sweep does nothing more.
      expect((await service.request('POST', `/v1/sessions/${stale.sessionId}/turns/start`)).body.turnIndex).toBe(2);
      expect((await watchdog.sweep()).abandonedTurns).toEqual([]);
    });

    it("a gateway's start abandons the turns in flight of its own sessions (reason gateway_restart), not another gateway's", async () => {
      const mine = await pinnedSession('gw-restarting');
      const other = await pinnedSession('gw-elsewhere');
      clock.advance(5_000);

      const started = await service.request('POST', '/v1/gateways/gw-restarting/started', { body: { bootId: 'boot-2' } });
      expect(started.status).toBe(200);
      expect(started.body.abandonedTurns).toEqual([{ sessionId: mine.sessionId, turnIndex: 2 }]);

      expect((await service.request('GET', `/v1/sessions/${mine.sessionId}`)).body).toMatchObject({
        turnInFlight: null,
        lastAbandonedTurn: { turnIndex: 2, startedAt: mine.startedAt, reason: 'gateway_restart' },
      });
      const events = (await service.request('GET', `/v1/sessions/${mine.sessionId}/events`)).body.events;
      expect(events.at(-1)).toMatchObject({ type: 'TurnAbandoned', data: { reason: 'gateway_restart', gatewayId: 'gw-restarting' } });
      expect((await rollback(mine.sessionId)).status).toBe(200);
      expect((await rollback(other.sessionId)).body.error.code).toBe('TURN_IN_FLIGHT');

      // The same boot again repeats its answer without writing.
      const again = await service.request('POST', '/v1/gateways/gw-restarting/started', { body: { bootId: 'boot-2' } });
      expect(again.body).toMatchObject({ replayed: true, abandonedTurns: [{ sessionId: mine.sessionId, turnIndex: 2 }] });
      expect((await eventTypes(mine.sessionId)).filter((type: string) => type === 'TurnAbandoned')).toHaveLength(1);
    });
  });
}
