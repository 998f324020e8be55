// A started turn nobody records is abandoned: by the watchdog after TURN_IN_FLIGHT_TIMEOUT_SECONDS, and by its gateway's next start.
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { RuntimeWatchdog } from '../../src/modules/runtime/runtimeWatchdog.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';

const clock = new ManualClock(new Date('2026-07-01T08:00:00Z'));

forEachBackend(
  'abandoned turns',
  (ledger) => {
    let chat = 0;

    /** A conversation's session with one completed turn (checkpoint cp-1) and a second turn started. */
    const pinnedSession = async (gatewayId = 'gw-turns') => {
      const { client } = ledger;
      const resolved = await client.resolveSession({ source: { platform: 'web', chatType: 'dm', chatId: `${ledger.backend}-abandon-${++chat}` }, gatewayId });
      const { sessionId } = resolved;
      const turn = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'hello' }] });
      expect(turn.checkpointId).toBe('cp-1');
      await client.startTurn(sessionId);
      expect((await refusalOf(rollback(sessionId))).code).toBe('TURN_IN_FLIGHT');
      return { sessionId, sessionKey: resolved.sessionKey, startedAt: clock.now().toISOString() };
    };
    const rollback = (sessionId: string) => ledger.client.rollback(sessionId, 'cp-1');
    const eventTypes = async (sessionId: string) => (await ledger.client.sessionEvents(sessionId)).events.map((event) => event.type);

    it('the watchdog abandons a turn in flight past the timeout (reason timeout); rollback then works and the turn shows in events, state and record', async () => {
      const { client } = ledger;
      const watchdog = ledger.service.app.get(RuntimeWatchdog);
      const stale = await pinnedSession();
      clock.advance(1_000_000);
      const fresh = await pinnedSession();

      clock.advance(800_001); // stale: 1800.001 s in flight; fresh: 800.001 s
      const swept = await watchdog.sweep();
      expect(swept.abandonedTurns).toContain(stale.sessionId);
      expect(swept.abandonedTurns).not.toContain(fresh.sessionId);

      expect(await client.getSession(stale.sessionId)).toMatchObject({
        turnInFlight: null,
        turnCount: 1,
        lastAbandonedTurn: { turnIndex: 2, startedAt: stale.startedAt, abandonedAt: clock.now().toISOString(), reason: 'timeout' },
      });
      expect((await eventTypes(stale.sessionId)).slice(-2)).toEqual(['TurnStarted', 'TurnAbandoned']);
      const { events } = await client.sessionEvents(stale.sessionId);
      expect(events.at(-1)).toMatchObject({
        type: 'TurnAbandoned',
        data: { turnIndex: 2, startedAt: stale.startedAt, reason: 'timeout' },
        metadata: { actor: 'runtime-watchdog' },
      });
      const record = await client.sessionRecord(stale.sessionId, { minPosition: events.at(-1)!.position });
      expect(record).toMatchObject({ turnInFlightIndex: null, turnInFlightSince: null, lastAbandonedTurn: { turnIndex: 2, reason: 'timeout' } });

      await rollback(stale.sessionId);
      // The fresh one is still pinned, and its record says so.
      expect((await refusalOf(rollback(fresh.sessionId))).code).toBe('TURN_IN_FLIGHT');
      expect(await client.sessionRecord(fresh.sessionId)).toMatchObject({
        turnInFlightIndex: 2,
        turnInFlightSince: fresh.startedAt,
        lastAbandonedTurn: null,
      });
      // The turn index stays free: the next start takes it again; a second sweep does nothing more.
      expect((await client.startTurn(stale.sessionId)).turnIndex).toBe(2);
      expect((await watchdog.sweep()).abandonedTurns).toEqual([]);
    });

    it("a gateway's start abandons the turns in flight of its own sessions (reason gateway_restart), not another gateway's", async () => {
      const { client } = ledger;
      const mine = await pinnedSession('gw-restarting');
      const other = await pinnedSession('gw-elsewhere');
      clock.advance(5_000);

      const started = await client.gatewayStarted('gw-restarting', { bootId: 'boot-2' });
      expect(started.abandonedTurns).toEqual([{ sessionId: mine.sessionId, turnIndex: 2 }]);

      expect(await client.getSession(mine.sessionId)).toMatchObject({
        turnInFlight: null,
        lastAbandonedTurn: { turnIndex: 2, startedAt: mine.startedAt, reason: 'gateway_restart' },
      });
      const { events } = await client.sessionEvents(mine.sessionId);
      expect(events.at(-1)).toMatchObject({ type: 'TurnAbandoned', data: { reason: 'gateway_restart', gatewayId: 'gw-restarting' } });
      await rollback(mine.sessionId);
      expect((await refusalOf(rollback(other.sessionId))).code).toBe('TURN_IN_FLIGHT');

      // The same boot again repeats its answer without writing.
      const again = await client.gatewayStarted('gw-restarting', { bootId: 'boot-2' });
      expect(again).toMatchObject({ replayed: true, abandonedTurns: [{ sessionId: mine.sessionId, turnIndex: 2 }] });
      expect((await eventTypes(mine.sessionId)).filter((type) => type === 'TurnAbandoned')).toHaveLength(1);
    });
  },
  // The default TURN_IN_FLIGHT_TIMEOUT_SECONDS (1800) is what is tested: nothing sets it.
  { clock, env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0' } },
);
