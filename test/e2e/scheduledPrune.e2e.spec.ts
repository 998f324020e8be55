// Scheduled prune over real HTTP with a ManualClock: idle entries forgotten each PRUNE_INTERVAL_MINUTES, busy ones kept, one claim per slot across instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerApiError } from '../../src/client/index.js';
import { ManualClock } from '../../src/clock.js';
import { PruneScheduler } from '../../src/modules/admin/pruneScheduler.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { telegramSource } from '../support/sources.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;
const DAY = 86_400_000;

const clockOf = clockPerBackend(new Date('2026-06-01T12:00:00Z'));

forEachBackend(
  'scheduled prune',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    let chat = 0;
    const resolve = () => ledger.client.resolveSession({ source: telegramSource(`${ledger.backend}-prune-${++chat}`) });
    // Any refusal means the entry is gone from the routing table, as any other status than 200 did.
    const exists = (key: string) =>
      ledger.client.getConversation(key).then(
        () => true,
        (error: unknown) => {
          if (error instanceof LedgerApiError) return false;
          throw error;
        },
      );

    it('forgets idle entries once per slot, skipping suspended conversations, queued messages and turns in flight; events stay', async () => {
      const { client, service } = ledger;
      const scheduler = service.app.get(PruneScheduler);
      const idle = await resolve();
      const suspended = await resolve();
      await client.suspendConversation(suspended.sessionKey, { reason: 'stop' });
      const queued = await resolve();
      await client.enqueue(queued.sessionKey, { message: { text: 'later' }, mode: 'queue' });
      const ledgerTurn = await resolve();
      await client.startTurn(ledgerTurn.sessionId);
      const runtimeTurn = await resolve();
      await client.runtimeTurn(runtimeTurn.sessionKey, { provider: 'codex', model: 'gpt-5', input: 'a long job' });

      clock.advance(8 * DAY);
      const recent = await resolve();
      // The index must have seen the latest activity before the sweep reads it.
      await client.sessionByKey(recent.sessionKey, { minPosition: await service.lastPosition() });

      const run = await scheduler.runDue();
      expect(run).toMatchObject({ slot: '2026-06-09T12:00:00.000Z', claimed: true });
      expect(run!.result!.pruned).toEqual([idle.sessionKey]);
      expect(await exists(idle.sessionKey)).toBe(false);
      for (const kept of [suspended, queued, ledgerTurn, runtimeTurn, recent]) expect(await exists(kept.sessionKey)).toBe(true);
      // Events stay, and the sweep is in the log with its actor.
      const { events } = await client.conversationEvents(idle.sessionKey, { fromRevision: 0, limit: 50 });
      expect(events.at(-1)).toMatchObject({ type: 'ConversationPruned', metadata: { actor: 'prune-scheduler' } });
      const claims = await service.infrastructure.eventStore.readStream('prune-schedule');
      expect(claims.map((event) => event.data)).toEqual([
        { slot: '2026-06-09T12:00:00.000Z', maxAgeDays: 7, olderThan: '2026-06-02T12:00:00.000Z', at: '2026-06-09T12:00:00.000Z' },
      ]);

      // Within the same slot nothing runs again; the next slot runs.
      clock.advance(30 * 60_000);
      expect(await scheduler.runDue()).toMatchObject({ claimed: false, result: null });
      clock.advance(31 * 60_000);
      expect(await scheduler.runDue()).toMatchObject({ slot: '2026-06-09T13:00:00.000Z', claimed: true, result: { pruned: [] } });
    });

    it('two prunes at once forget each idle entry once, and neither fails on an entry the other forgot', async () => {
      const { client, service } = ledger;
      const idle = [await resolve(), await resolve(), await resolve()].map((resolved) => resolved.sessionKey);
      clock.advance(8 * DAY);
      await client.sessionByKey(idle[2]!, { minPosition: await service.lastPosition() });
      // Both succeed (the prune route answers 200 and nothing else when it does).
      const answers = await Promise.all([1, 2].map(() => client.pruneConversations(7)));
      const pruned = answers.flatMap((answer) => answer.pruned);
      // Each forgotten once, by one of the two (the first test's recent entry has gone idle too).
      expect(new Set(pruned).size).toBe(pruned.length);
      expect(pruned).toEqual(expect.arrayContaining(idle));
      for (const key of idle) expect(await exists(key)).toBe(false);
    });
  },
  (backend) => ({
    clock: clockOf(backend),
    env: { PRUNE_MAX_AGE_DAYS: '7', PRUNE_INTERVAL_MINUTES: '60', RUNTIME_WATCHDOG_INTERVAL_MS: '0' },
  }),
);

if (backendsUnderTest().includes('postgres')) {
  describe('scheduled prune on two instances sharing one PostgreSQL', () => {
    const schema = uniqueSchema('prune_multi');
    const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      const env = { PRUNE_MAX_AGE_DAYS: '1', PRUNE_INTERVAL_MINUTES: '15' };
      a = await startTestApp('postgres', { schema, keepSchema: true, clock, env });
      b = await startTestApp('postgres', { schema, clock, env });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('runs each slot exactly once: one instance claims it and prunes, the other does nothing', async () => {
      const idle = await a.request('POST', '/v1/sessions/resolve', { body: { source: { platform: 'telegram', chatType: 'dm', chatId: 'prune-multi' } } });
      clock.advance(2 * DAY);
      await a.request('GET', `/v1/sessions/by-key/${enc(idle.body.sessionKey)}?minPosition=${idle.body.position}`);
      const runs = await Promise.all([a.app.get(PruneScheduler).runDue(), b.app.get(PruneScheduler).runDue(), a.app.get(PruneScheduler).runDue()]);
      expect(runs.filter((run) => run!.claimed)).toHaveLength(1);
      expect(runs.flatMap((run) => run!.result?.pruned ?? [])).toEqual([idle.body.sessionKey]);
      expect(await a.infrastructure.eventStore.readStream('prune-schedule')).toHaveLength(1);
    });
  });
}

describe('scheduled prune off (PRUNE_MAX_AGE_DAYS unset)', () => {
  let service: TestApp;
  beforeAll(async () => {
    service = await startTestApp('pglite');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('claims and prunes nothing', async () => {
    expect(await service.app.get(PruneScheduler).runDue()).toBeNull();
    await expect(service.infrastructure.eventStore.readStream('prune-schedule')).rejects.toThrow(/does not exist/);
  });
});
