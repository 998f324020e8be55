// Restart recovery and the durable queue over real HTTP: drains, crash starts, the stuck-loop guard, queue delivery.
import { expect, it } from 'vitest';
import type { SessionSource } from '../../src/client/index.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

const clockOf = clockPerBackend(new Date('2026-06-01T12:00:00Z'));

forEachBackend(
  'restart recovery and queue',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    let chat = 0;
    const source = () => sourceOn('slack', `${ledger.backend}-${++chat}`);
    const resolve = (gatewayId: string, chatSource: SessionSource = source()) => ledger.client.resolveSession({ source: chatSource, gatewayId });
    const entry = (key: string) => ledger.client.getConversation(key);

    it('marks conversations with a turn in flight at drain, clears the drained ones, and starts clean', async () => {
      const { client } = ledger;
      const busy = await resolve('gw-drain');
      const drained = await resolve('gw-drain');
      const stopping = await client.gatewayStopping('gw-drain', { activeKeys: [busy.sessionKey, drained.sessionKey], mode: 'restart' });
      expect(stopping.marked).toEqual([busy.sessionKey, drained.sessionKey]);
      expect((await entry(busy.sessionKey)).resumeReason).toBe('restart_timeout');
      const stopped = await client.gatewayStopped('gw-drain', { drainTimedOut: [busy.sessionKey] });
      expect(stopped).toMatchObject({ cleanShutdown: false, cleared: [drained.sessionKey] });
      expect((await entry(drained.sessionKey)).resumePending).toBe(false);
      expect((await entry(busy.sessionKey)).resumePending).toBe(true);
      clock.advance(5_000);
      const started = await client.gatewayStarted('gw-drain', { bootId: 'boot-1' });
      expect(started.resume.map((candidate) => candidate.sessionKey)).toContain(busy.sessionKey);
      const candidate = started.resume.find((item) => item.sessionKey === busy.sessionKey);
      expect(candidate).toMatchObject({ sessionId: busy.sessionId, reason: 'restart_timeout', origin: { platform: 'slack' } });
      // Idempotent for one boot.
      const again = await client.gatewayStarted('gw-drain', { bootId: 'boot-1' });
      expect(again).toMatchObject({ replayed: true, resume: started.resume });
    });

    it('after a clean stop, a start marks nothing', async () => {
      const { client } = ledger;
      const quiet = await resolve('gw-clean');
      await client.gatewayStopping('gw-clean', { activeKeys: [], mode: 'shutdown' });
      await client.gatewayStopped('gw-clean', { drainTimedOut: [] });
      const started = await client.gatewayStarted('gw-clean', { bootId: 'clean-boot' });
      expect(started).toMatchObject({ cleanShutdown: true, marked: [], suspended: [] });
      expect((await entry(quiet.sessionKey)).resumePending).toBe(false);
    });

    it('after a hard kill, marks recently active conversations restart_interrupted and leaves idle ones alone', async () => {
      const old = await resolve('gw-crash');
      clock.advance(300_000);
      const recent = await resolve('gw-crash');
      clock.advance(30_000);
      const started = await ledger.client.gatewayStarted('gw-crash', { bootId: 'crash-1' });
      expect(started.cleanShutdown).toBe(false);
      expect(started.marked).toEqual([recent.sessionKey]);
      expect((await entry(recent.sessionKey)).resumeReason).toBe('restart_interrupted');
      expect((await entry(old.sessionKey)).resumePending).toBe(false);
      // The mark keeps the session id on the next message.
      const next = await resolve('gw-crash', sourceOn('slack', recent.entry.origin.chatId!));
      expect(next).toMatchObject({ sessionId: recent.sessionId, state: 'resumed' });
    });

    it('suspends a conversation active across 3 unclean starts in a row; a completed turn resets the count', async () => {
      const { client } = ledger;
      const chatSource = source();
      const looping = await resolve('gw-loop', chatSource);
      for (let boot = 1; boot <= 2; boot++) {
        clock.advance(10_000);
        await resolve('gw-loop', chatSource);
        const started = await client.gatewayStarted('gw-loop', { bootId: `loop-${boot}` });
        // Marked once; an entry already resume-pending is not marked again, but the start still counts.
        expect(started.marked).toEqual(boot === 1 ? [looping.sessionKey] : []);
        expect(started.suspended).toEqual([]);
      }
      // A completed turn clears the counter: two more unclean starts are not enough again.
      await client.recordTurn(looping.sessionId, { messages: [{ role: 'user', content: 'ok' }] });
      for (let boot = 3; boot <= 4; boot++) {
        clock.advance(10_000);
        await resolve('gw-loop', chatSource);
        expect((await client.gatewayStarted('gw-loop', { bootId: `loop-${boot}` })).suspended).toEqual([]);
      }
      clock.advance(10_000);
      await resolve('gw-loop', chatSource);
      const third = await client.gatewayStarted('gw-loop', { bootId: 'loop-5' });
      expect(third.suspended).toEqual([looping.sessionKey]);
      expect((await entry(looping.sessionKey)).suspended).toBe(true);
    });

    it('queues messages durably: a media burst joined, FIFO overflow, cap, delivery once, reset clears', async () => {
      const { client } = ledger;
      const { sessionKey } = await resolve('gw-queue');
      // The enqueue route answers 202 and nothing else when it succeeds.
      const first = await client.enqueue(sessionKey, { message: { text: 'first', media: ['a.png'] }, mode: 'interrupt' });
      expect(first).toMatchObject({ placement: 'slot', depth: 1 });
      const burst = await client.enqueue(sessionKey, { message: { text: 'second', media: ['b.png'] }, mode: 'interrupt' });
      expect(burst).toMatchObject({ placement: 'slot', coalescedInto: first.messageId, depth: 1 });
      for (const text of ['q1', 'q2', 'q3']) await client.enqueue(sessionKey, { message: { text }, mode: 'queue' });
      expect((await client.getQueue(sessionKey)).depth).toBe(4);
      const takes = await Promise.all(Array.from({ length: 6 }, () => client.nextQueued(sessionKey)));
      const delivered = takes.filter((take) => take !== null).map((take) => take.message);
      expect(takes.filter((take) => take === null)).toHaveLength(2);
      expect(delivered.map((message) => message.text).sort()).toEqual(['first\nsecond', 'q1', 'q2', 'q3']);
      expect(delivered.find((message) => message.text === 'first\nsecond')!.media).toEqual(['a.png', 'b.png']);
      expect(new Set(delivered.map((message) => message.id)).size).toBe(4);
      // Sequential delivery order: slot first, then FIFO.
      for (const text of ['x', 'y']) await client.enqueue(sessionKey, { message: { text }, mode: 'queue' });
      expect((await client.nextQueued(sessionKey))!.message.text).toBe('x');
      expect((await client.nextQueued(sessionKey))!.message.text).toBe('y');
      await client.enqueue(sessionKey, { message: { text: 'gone' }, mode: 'queue' });
      await client.resetConversation(sessionKey);
      expect((await client.getQueue(sessionKey)).depth).toBe(0);
    });

    it("follow-ups each run in arrival order, and /stop discards only the next in line, as Hermes' gateway does", async () => {
      const { client } = ledger;
      const { sessionKey } = await resolve('gw-queue');
      const send = (text: string, mode: 'interrupt' | 'queue') => client.enqueue(sessionKey, { message: { id: `m-${text}`, text }, mode });
      for (const [text, mode] of [
        ['one', 'interrupt'],
        ['task', 'queue'],
        ['two', 'interrupt'],
        ['two', 'interrupt'],
      ] as const) {
        // Each is accepted (202, the route's only success).
        await send(text, mode);
      }
      // The repeated 'two' (the same message id sent again) is queued once.
      expect(await client.getQueue(sessionKey)).toMatchObject({ slot: { text: 'one' }, overflow: [{ text: 'task' }, { text: 'two' }], depth: 3 });
      expect((await client.nextQueued(sessionKey))!.message.text).toBe('one');
      await client.suspendConversation(sessionKey, { reason: 'stop' });
      expect(await client.getQueue(sessionKey)).toMatchObject({ slot: null, overflow: [{ text: 'two' }], depth: 1 });
    });

    it('prunes routing entries idle longer than maxAgeDays, keeping suspended and recent ones and those with a live background process', async () => {
      const { client, service } = ledger;
      const idleSource = source();
      const idle = await resolve('gw-prune', idleSource);
      const stopped = await resolve('gw-prune');
      await client.suspendConversation(stopped.sessionKey);
      // As Hermes' prune_old_entries: a session whose gateway still runs a background process for it stays, however old the process.
      const working = await client.resolveSession({
        source: source(),
        gatewayId: 'gw-prune',
        activity: { backgroundProcessSince: clock.now().toISOString() },
      });
      clock.advance(10 * 86_400_000);
      const recent = await resolve('gw-prune');
      expect((await client.pruneConversations(0)).pruned).toEqual([]);
      const head = await service.lastPosition();
      await client.sessionByKey(recent.sessionKey, { minPosition: head });
      // The prune route answers 200 and nothing else when it succeeds.
      const pruned = await client.pruneConversations(7);
      expect(pruned.pruned).toContain(idle.sessionKey);
      expect(pruned.pruned).not.toContain(stopped.sessionKey);
      expect(pruned.pruned).not.toContain(recent.sessionKey);
      expect(pruned.pruned).not.toContain(working.sessionKey);
      expect((await refusalOf(client.getConversation(idle.sessionKey))).status).toBe(404);
      expect((await refusalOf(client.sessionByKey(idle.sessionKey, { minPosition: pruned.position }))).status).toBe(404);
      // The transcript is still there (the session's route answers 200), and the next message starts a new session.
      await client.getSession(idle.sessionId);
      const again = await resolve('gw-prune', idleSource);
      expect(again).toMatchObject({ created: true, state: 'cold' });
      expect((await refusalOf(client.pruneConversations(-1))).status).toBe(400);
    });

    it('prunes an entry once its gateway reports its background process gone', async () => {
      const { client, service } = ledger;
      const workingSource = source();
      const working = await client.resolveSession({
        source: workingSource,
        gatewayId: 'gw-prune',
        activity: { backgroundProcessSince: clock.now().toISOString() },
      });
      clock.advance(10 * 86_400_000);
      const kept = await client.pruneConversations(7);
      expect(kept.pruned).not.toContain(working.sessionKey);
      // The report rides on a resolve, which is activity too: the entry is then pruned once it is idle again.
      await client.resolveSession({ source: workingSource, gatewayId: 'gw-prune', activity: { backgroundProcessSince: null } });
      clock.advance(10 * 86_400_000);
      const head = await service.lastPosition();
      await client.sessionByKey(working.sessionKey, { minPosition: head });
      expect((await client.pruneConversations(7)).pruned).toContain(working.sessionKey);
    });
  },
  (backend) => ({ clock: clockOf(backend) }),
);

forEachBackend(
  'restart recovery and queue, a queue capped at 2',
  (ledger) => {
    it('refuses past the queue cap with 429 QUEUE_FULL', async () => {
      const { client } = ledger;
      const { sessionKey } = await client.resolveSession({ source: sourceOn('slack', `${ledger.backend}-capped`) });
      // Accepted (202, the route's only success) up to the cap.
      await client.enqueue(sessionKey, { message: { text: 'a' } });
      await client.enqueue(sessionKey, { message: { text: 'b' } });
      expect(await refusalOf(client.enqueue(sessionKey, { message: { text: 'c' } }))).toEqual({ status: 429, code: 'QUEUE_FULL' });
      expect((await client.getQueue(sessionKey)).depth).toBe(2);
    });
  },
  { env: { QUEUE_CAP: '2' } },
);
