// Restart recovery and the durable queue over real HTTP: drains, crash starts, the stuck-loop guard, queue delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`restart recovery and queue: ${backend}`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    let chat = 0;
    const source = () => ({ platform: 'slack', chatType: 'dm', chatId: `${backend}-${++chat}` });
    const resolve = (gatewayId: string, chatSource = source()) => service.request('POST', '/v1/sessions/resolve', { body: { source: chatSource, gatewayId } });
    const gateway = (id: string, step: string, body: object = {}) => service.request('POST', `/v1/gateways/${id}/${step}`, { body });
    const entry = async (key: string) => (await service.request('GET', `/v1/conversations/${enc(key)}`)).body;

    beforeAll(async () => {
      service = await startTestApp(backend, { clock });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('marks conversations with a turn in flight at drain, clears the drained ones, and starts clean', async () => {
      const busy = await resolve('gw-drain');
      const drained = await resolve('gw-drain');
      const stopping = await gateway('gw-drain', 'stopping', { activeKeys: [busy.body.sessionKey, drained.body.sessionKey], mode: 'restart' });
      expect(stopping.body.marked).toEqual([busy.body.sessionKey, drained.body.sessionKey]);
      expect((await entry(busy.body.sessionKey)).resumeReason).toBe('restart_timeout');
      const stopped = await gateway('gw-drain', 'stopped', { drainTimedOut: [busy.body.sessionKey] });
      expect(stopped.body).toMatchObject({ cleanShutdown: false, cleared: [drained.body.sessionKey] });
      expect((await entry(drained.body.sessionKey)).resumePending).toBe(false);
      expect((await entry(busy.body.sessionKey)).resumePending).toBe(true);
      clock.advance(5_000);
      const started = await gateway('gw-drain', 'started', { bootId: 'boot-1' });
      expect(started.body.resume.map((candidate: { sessionKey: string }) => candidate.sessionKey)).toContain(busy.body.sessionKey);
      const candidate = started.body.resume.find((item: { sessionKey: string }) => item.sessionKey === busy.body.sessionKey);
      expect(candidate).toMatchObject({ sessionId: busy.body.sessionId, reason: 'restart_timeout', origin: { platform: 'slack' } });
      // Idempotent for one boot.
      const again = await gateway('gw-drain', 'started', { bootId: 'boot-1' });
      expect(again.body).toMatchObject({ replayed: true, resume: started.body.resume });
    });

    it('after a clean stop, a start marks nothing', async () => {
      const quiet = await resolve('gw-clean');
      await gateway('gw-clean', 'stopping', { activeKeys: [], mode: 'shutdown' });
      await gateway('gw-clean', 'stopped', { drainTimedOut: [] });
      const started = await gateway('gw-clean', 'started', { bootId: 'clean-boot' });
      expect(started.body).toMatchObject({ cleanShutdown: true, marked: [], suspended: [] });
      expect((await entry(quiet.body.sessionKey)).resumePending).toBe(false);
    });

    it('after a hard kill, marks recently active conversations restart_interrupted and leaves idle ones alone', async () => {
      const old = await resolve('gw-crash');
      clock.advance(300_000);
      const recent = await resolve('gw-crash');
      clock.advance(30_000);
      const started = await gateway('gw-crash', 'started', { bootId: 'crash-1' });
      expect(started.body.cleanShutdown).toBe(false);
      expect(started.body.marked).toEqual([recent.body.sessionKey]);
      expect((await entry(recent.body.sessionKey)).resumeReason).toBe('restart_interrupted');
      expect((await entry(old.body.sessionKey)).resumePending).toBe(false);
      // The mark keeps the session id on the next message.
      const next = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'slack', chatType: 'dm', chatId: recent.body.entry.origin.chatId }, gatewayId: 'gw-crash' },
      });
      expect(next.body).toMatchObject({ sessionId: recent.body.sessionId, state: 'resumed' });
    });

    it('suspends a conversation active across 3 unclean starts in a row; a completed turn resets the count', async () => {
      const chatSource = source();
      const looping = await resolve('gw-loop', chatSource);
      for (let boot = 1; boot <= 2; boot++) {
        clock.advance(10_000);
        await resolve('gw-loop', chatSource);
        const started = await gateway('gw-loop', 'started', { bootId: `loop-${boot}` });
        // Marked once; an entry already resume-pending is not marked again, but the start still counts.
        expect(started.body.marked).toEqual(boot === 1 ? [looping.body.sessionKey] : []);
        expect(started.body.suspended).toEqual([]);
      }
      // A completed turn clears the counter: two more unclean starts are not enough again.
      await service.request('POST', `/v1/sessions/${looping.body.sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'ok' }] } });
      for (let boot = 3; boot <= 4; boot++) {
        clock.advance(10_000);
        await resolve('gw-loop', chatSource);
        expect((await gateway('gw-loop', 'started', { bootId: `loop-${boot}` })).body.suspended).toEqual([]);
      }
      clock.advance(10_000);
      await resolve('gw-loop', chatSource);
      const third = await gateway('gw-loop', 'started', { bootId: 'loop-5' });
      expect(third.body.suspended).toEqual([looping.body.sessionKey]);
      expect((await entry(looping.body.sessionKey)).suspended).toBe(true);
    });

    it('queues messages durably: a media burst joined, FIFO overflow, cap, delivery once, reset clears', async () => {
      const { body } = await resolve('gw-queue');
      const queue = `/v1/conversations/${enc(body.sessionKey)}/queue`;
      const first = await service.request('POST', queue, { body: { message: { text: 'first', media: ['a.png'] }, mode: 'interrupt' } });
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ placement: 'slot', depth: 1 });
      const burst = await service.request('POST', queue, { body: { message: { text: 'second', media: ['b.png'] }, mode: 'interrupt' } });
      expect(burst.body).toMatchObject({ placement: 'slot', coalescedInto: first.body.messageId, depth: 1 });
      for (const text of ['q1', 'q2', 'q3']) await service.request('POST', queue, { body: { message: { text }, mode: 'queue' } });
      expect((await service.request('GET', queue)).body.depth).toBe(4);
      const takes = await Promise.all(Array.from({ length: 6 }, () => service.request('POST', `${queue}/next`)));
      const delivered = takes.filter((take) => take.status === 200).map((take) => take.body.message);
      expect(takes.filter((take) => take.status === 204)).toHaveLength(2);
      expect(delivered.map((message: { text: string }) => message.text).sort()).toEqual(['first\nsecond', 'q1', 'q2', 'q3']);
      expect(delivered.find((message: { text: string }) => message.text === 'first\nsecond').media).toEqual(['a.png', 'b.png']);
      expect(new Set(delivered.map((message: { id: string }) => message.id)).size).toBe(4);
      // Sequential delivery order: slot first, then FIFO.
      for (const text of ['x', 'y']) await service.request('POST', queue, { body: { message: { text }, mode: 'queue' } });
      expect((await service.request('POST', `${queue}/next`)).body.message.text).toBe('x');
      expect((await service.request('POST', `${queue}/next`)).body.message.text).toBe('y');
      await service.request('POST', queue, { body: { message: { text: 'gone' }, mode: 'queue' } });
      await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/reset`);
      expect((await service.request('GET', queue)).body.depth).toBe(0);
    });

    it("follow-ups each run in arrival order, and /stop discards only the next in line, as Hermes' gateway does", async () => {
      const { body } = await resolve('gw-queue');
      const queue = `/v1/conversations/${enc(body.sessionKey)}/queue`;
      const send = (text: string, mode: 'interrupt' | 'queue') => service.request('POST', queue, { body: { message: { id: `m-${text}`, text }, mode } });
      for (const [text, mode] of [
        ['one', 'interrupt'],
        ['task', 'queue'],
        ['two', 'interrupt'],
        ['two', 'interrupt'],
      ] as const) {
        expect((await send(text, mode)).status).toBe(202);
      }
      // The repeated 'two' (the same message id sent again) is queued once.
      expect((await service.request('GET', queue)).body).toMatchObject({ slot: { text: 'one' }, overflow: [{ text: 'task' }, { text: 'two' }], depth: 3 });
      expect((await service.request('POST', `${queue}/next`)).body.message.text).toBe('one');
      await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/suspend`, { body: { reason: 'stop' } });
      expect((await service.request('GET', queue)).body).toMatchObject({ slot: null, overflow: [{ text: 'two' }], depth: 1 });
    });

    it('prunes routing entries idle longer than maxAgeDays, keeping suspended and recent ones and those with a live background process', async () => {
      const idleSource = source();
      const idle = await resolve('gw-prune', idleSource);
      const stopped = await resolve('gw-prune');
      await service.request('POST', `/v1/conversations/${enc(stopped.body.sessionKey)}/suspend`);
      // As Hermes' prune_old_entries: a session whose gateway still runs a background process for it stays, however old the process.
      const workingSource = source();
      const working = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: workingSource, gatewayId: 'gw-prune', activity: { backgroundProcessSince: clock.now().toISOString() } },
      });
      clock.advance(10 * 86_400_000);
      const recent = await resolve('gw-prune');
      expect((await service.request('POST', '/v1/admin/prune', { body: { maxAgeDays: 0 } })).body.pruned).toEqual([]);
      const head = await service.lastPosition();
      await service.request('GET', `/v1/sessions/by-key/${enc(recent.body.sessionKey)}?minPosition=${head}`);
      const pruned = await service.request('POST', '/v1/admin/prune', { body: { maxAgeDays: 7 } });
      expect(pruned.status).toBe(200);
      expect(pruned.body.pruned).toContain(idle.body.sessionKey);
      expect(pruned.body.pruned).not.toContain(stopped.body.sessionKey);
      expect(pruned.body.pruned).not.toContain(recent.body.sessionKey);
      expect(pruned.body.pruned).not.toContain(working.body.sessionKey);
      expect((await service.request('GET', `/v1/conversations/${enc(idle.body.sessionKey)}`)).status).toBe(404);
      const gone = await service.request('GET', `/v1/sessions/by-key/${enc(idle.body.sessionKey)}?minPosition=${pruned.body.position}`);
      expect(gone.status).toBe(404);
      // The transcript is still there, and the next message starts a new session.
      expect((await service.request('GET', `/v1/sessions/${idle.body.sessionId}`)).status).toBe(200);
      const again = await resolve('gw-prune', idleSource);
      expect(again.body).toMatchObject({ created: true, state: 'cold' });
      expect((await service.request('POST', '/v1/admin/prune', { body: { maxAgeDays: -1 } })).status).toBe(400);
    });

    it('prunes an entry once its gateway reports its background process gone', async () => {
      const workingSource = source();
      const working = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: workingSource, gatewayId: 'gw-prune', activity: { backgroundProcessSince: clock.now().toISOString() } },
      });
      clock.advance(10 * 86_400_000);
      const kept = await service.request('POST', '/v1/admin/prune', { body: { maxAgeDays: 7 } });
      expect(kept.body.pruned).not.toContain(working.body.sessionKey);
      // The report rides on a resolve, which is activity too: the entry is then pruned once it is idle again.
      await service.request('POST', '/v1/sessions/resolve', {
        body: { source: workingSource, gatewayId: 'gw-prune', activity: { backgroundProcessSince: null } },
      });
      clock.advance(10 * 86_400_000);
      const head = await service.lastPosition();
      await service.request('GET', `/v1/sessions/by-key/${enc(working.body.sessionKey)}?minPosition=${head}`);
      expect((await service.request('POST', '/v1/admin/prune', { body: { maxAgeDays: 7 } })).body.pruned).toContain(working.body.sessionKey);
    });

    it('refuses past the queue cap with 429 QUEUE_FULL', async () => {
      const capped = await startTestApp(backend, { env: { QUEUE_CAP: '2' } });
      try {
        const resolved = await capped.request('POST', '/v1/sessions/resolve', { body: { source: source() } });
        const queue = `/v1/conversations/${enc(resolved.body.sessionKey)}/queue`;
        expect((await capped.request('POST', queue, { body: { message: { text: 'a' } } })).status).toBe(202);
        expect((await capped.request('POST', queue, { body: { message: { text: 'b' } } })).status).toBe(202);
        const full = await capped.request('POST', queue, { body: { message: { text: 'c' } } });
        expect(full.status).toBe(429);
        expect(full.body.error.code).toBe('QUEUE_FULL');
        expect((await capped.request('GET', queue)).body.depth).toBe(2);
      } finally {
        await capped.close();
      }
    });
  });
}
