// Scheduled prune over real HTTP with a ManualClock: idle entries forgotten each PRUNE_INTERVAL_MINUTES, busy ones kept, one claim per slot across instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PruneScheduler } from '../../src/modules/admin/pruneScheduler.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;
const DAY = 86_400_000;

for (const backend of e2eBackends()) {
  describe(`scheduled prune: ${backend}`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    let chat = 0;
    const resolve = () =>
      service.request('POST', '/v1/sessions/resolve', { body: { source: { platform: 'telegram', chatType: 'dm', chatId: `${backend}-prune-${++chat}` } } });
    const exists = async (key: string) => (await service.request('GET', `/v1/conversations/${enc(key)}`)).status === 200;

    beforeAll(async () => {
      service = await startTestApp(backend, { clock, env: { PRUNE_MAX_AGE_DAYS: '7', PRUNE_INTERVAL_MINUTES: '60', RUNTIME_WATCHDOG_INTERVAL_MS: '0' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('forgets idle entries once per slot, skipping suspended conversations, queued messages and turns in flight; events stay', async () => {
      const scheduler = service.app.get(PruneScheduler);
      const idle = await resolve();
      const suspended = await resolve();
      await service.request('POST', `/v1/conversations/${enc(suspended.body.sessionKey)}/suspend`, { body: { reason: 'stop' } });
      const queued = await resolve();
      await service.request('POST', `/v1/conversations/${enc(queued.body.sessionKey)}/queue`, { body: { message: { text: 'later' }, mode: 'queue' } });
      const ledgerTurn = await resolve();
      expect((await service.request('POST', `/v1/sessions/${ledgerTurn.body.sessionId}/turns/start`)).status).toBeLessThan(300);
      const runtimeTurn = await resolve();
      await service.request('POST', `/v1/conversations/${enc(runtimeTurn.body.sessionKey)}/runtime/turns`, {
        body: { provider: 'codex', model: 'gpt-5', input: 'a long job' },
      });

      clock.advance(8 * DAY);
      const recent = await resolve();
      // The index must have seen the latest activity before the sweep reads it.
      await service.request('GET', `/v1/sessions/by-key/${enc(recent.body.sessionKey)}?minPosition=${await service.lastPosition()}`);

      const run = await scheduler.runDue();
      expect(run).toMatchObject({ slot: '2026-06-09T12:00:00.000Z', claimed: true });
      expect(run!.result!.pruned).toEqual([idle.body.sessionKey]);
      expect(await exists(idle.body.sessionKey)).toBe(false);
      for (const kept of [suspended, queued, ledgerTurn, runtimeTurn, recent]) expect(await exists(kept.body.sessionKey)).toBe(true);
      // Events stay, and the sweep is in the log with its actor.
      const events = (await service.request('GET', `/v1/conversations/${enc(idle.body.sessionKey)}/events?fromRevision=0&limit=50`)).body.events;
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
      const idle = [await resolve(), await resolve(), await resolve()].map((response) => response.body.sessionKey as string);
      clock.advance(8 * DAY);
      await service.request('GET', `/v1/sessions/by-key/${enc(idle[2]!)}?minPosition=${await service.lastPosition()}`);
      const answers = await Promise.all([1, 2].map(() => service.request('POST', '/v1/admin/prune', { body: { maxAgeDays: 7 } })));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const pruned = answers.flatMap((answer) => answer.body.pruned as string[]);
      // Each forgotten once, by one of the two (the first test's recent entry has gone idle too).
      expect(new Set(pruned).size).toBe(pruned.length);
      expect(pruned).toEqual(expect.arrayContaining(idle));
      for (const key of idle) expect(await exists(key)).toBe(false);
    });
  });
}

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
