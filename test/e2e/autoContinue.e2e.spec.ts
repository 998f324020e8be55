// Auto-continue after an unclean restart over real HTTP: one continuation at the head of each resumed queue, once per boot, none for stale marks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`auto-continue: ${backend}`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    let chat = 0;
    const resolve = (gatewayId: string) =>
      service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'slack', chatType: 'dm', chatId: `${backend}-ac-${++chat}` }, gatewayId },
      });
    const gateway = (id: string, step: string, body: object = {}) => service.request('POST', `/v1/gateways/${id}/${step}`, { body });
    const enqueue = (key: string, id: string, text: string) =>
      service.request('POST', `/v1/conversations/${enc(key)}/queue`, { body: { message: { id, text }, mode: 'queue' } });
    const next = async (key: string) => (await service.request('POST', `/v1/conversations/${enc(key)}/queue/next`)).body;
    const queue = async (key: string) => (await service.request('GET', `/v1/conversations/${enc(key)}/queue`)).body;

    /** A drain that timed out with the conversation's turn in flight: its resume mark says restart_timeout. */
    const drainTimedOut = async (gatewayId: string, key: string) => {
      await gateway(gatewayId, 'stopping', { activeKeys: [key], mode: 'restart' });
      await gateway(gatewayId, 'stopped', { drainTimedOut: [key] });
    };

    beforeAll(async () => {
      service = await startTestApp(backend, { clock, env: { RESUME_FRESHNESS_SECONDS: '600' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('puts one continuation at the head of the queue, with the reason and the interrupted text, once per boot', async () => {
      const conversation = await resolve('gw-ac');
      const key = conversation.body.sessionKey as string;
      await enqueue(key, 'task', 'build the quarterly report');
      expect((await next(key)).message.id).toBe('task');
      await drainTimedOut('gw-ac', key);
      // A message that arrived while the gateway was down waits in the queue already.
      await enqueue(key, 'early', 'are you there?');

      clock.advance(5_000);
      const started = await gateway('gw-ac', 'started', { bootId: 'boot-1', autoContinue: true });
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ cleanShutdown: false, continued: [key], resume: [{ sessionKey: key, reason: 'restart_timeout' }] });
      const waiting = await queue(key);
      expect(waiting.depth).toBe(2);
      expect(waiting.overflow[0]).toMatchObject({
        id: 'auto-continue:boot-1',
        kind: 'auto_continue',
        mode: 'queue',
        continuation: { reason: 'restart_timeout', bootId: 'boot-1', interruptedText: 'build the quarterly report' },
      });
      expect(waiting.overflow[0].text).toContain('The interrupted request was: build the quarterly report');

      // Repeated, the start answers the same and queues nothing more; a later boot finds the continuation still waiting.
      const again = await gateway('gw-ac', 'started', { bootId: 'boot-1', autoContinue: true });
      expect(again.body).toMatchObject({ replayed: true, continued: [key] });
      expect((await queue(key)).depth).toBe(2);

      // Messages that arrive now queue behind it; the gateway's loop takes the continuation first.
      await enqueue(key, 'late', 'hello?');
      expect([(await next(key)).message.id, (await next(key)).message.id, (await next(key)).message.id]).toEqual(['auto-continue:boot-1', 'early', 'late']);

      const events = (await service.request('GET', `/v1/conversations/${enc(key)}/events?fromRevision=0&limit=100`)).body.events;
      expect(events.filter((event: { type: string }) => event.type === 'ContinuationQueued')).toHaveLength(1);
    });

    it('continues by default, as Hermes does (AUTO_CONTINUE defaults to true)', async () => {
      const key = (await resolve('gw-default')).body.sessionKey as string;
      await drainTimedOut('gw-default', key);
      const started = await gateway('gw-default', 'started', { bootId: 'default-1' });
      expect(started.body).toMatchObject({ resume: [{ sessionKey: key }], continued: [key] });
      expect((await queue(key)).overflow[0]).toMatchObject({ kind: 'auto_continue' });
    });

    it('continues a conversation whose last message is a tool result nobody answered, without a resume mark, once', async () => {
      const conversation = await resolve('gw-tail');
      const key = conversation.body.sessionKey as string;
      const turn = await service.request('POST', `/v1/sessions/${conversation.body.sessionId}/turns`, {
        body: {
          messages: [
            { role: 'user', content: 'list the files' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
            { role: 'tool', content: 'a.txt b.txt', toolCallId: 'call-1' },
          ],
          status: 'interrupted',
        },
      });
      expect(turn.status, turn.text).toBe(201);
      const answered = await resolve('gw-tail');
      await service.request('POST', `/v1/sessions/${answered.body.sessionId}/turns`, {
        body: {
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: 'hello' },
          ],
        },
      });
      await gateway('gw-tail', 'stopping', { activeKeys: [], mode: 'restart' });
      await gateway('gw-tail', 'stopped', { drainTimedOut: [] });
      const started = await gateway('gw-tail', 'started', { bootId: 'tail-1' });
      expect(started.body).toMatchObject({ cleanShutdown: true, resume: [{ sessionKey: key, reason: 'restart_interrupted' }], continued: [key] });
      expect(started.body.resume.map((candidate: { sessionKey: string }) => candidate.sessionKey)).not.toContain(answered.body.sessionKey);
      expect((await queue(key)).overflow[0]).toMatchObject({ kind: 'auto_continue', continuation: { reason: 'restart_interrupted', bootId: 'tail-1' } });
      // A later boot with the continuation still waiting queues no second one.
      await gateway('gw-tail', 'started', { bootId: 'tail-2' });
      expect((await queue(key)).depth).toBe(1);
    });

    it('queues nothing when a start says autoContinue false, for a clean stop, or for a resume mark older than RESUME_FRESHNESS_SECONDS', async () => {
      const plain = (await resolve('gw-plain')).body.sessionKey as string;
      await drainTimedOut('gw-plain', plain);
      const started = await gateway('gw-plain', 'started', { bootId: 'plain-1', autoContinue: false });
      expect(started.body).toMatchObject({ resume: [{ sessionKey: plain }], continued: [] });
      expect((await queue(plain)).depth).toBe(0);

      const stale = (await resolve('gw-stale')).body.sessionKey as string;
      await drainTimedOut('gw-stale', stale);
      clock.advance(601_000);
      const late = await gateway('gw-stale', 'started', { bootId: 'stale-1', autoContinue: true });
      expect(late.body).toMatchObject({ resume: [], continued: [] });
      expect((await queue(stale)).depth).toBe(0);

      const clean = (await resolve('gw-clean')).body.sessionKey as string;
      await gateway('gw-clean', 'stopping', { activeKeys: [], mode: 'shutdown' });
      await gateway('gw-clean', 'stopped', { drainTimedOut: [] });
      expect((await gateway('gw-clean', 'started', { bootId: 'clean-1', autoContinue: true })).body).toMatchObject({ cleanShutdown: true, continued: [] });
      expect((await queue(clean)).depth).toBe(0);

      expect((await gateway('gw-clean', 'started', { autoContinue: 'yes' })).status).toBe(400);
    });

    it('quotes the runtime turn the restart cut short', async () => {
      const key = (await resolve('gw-rt')).body.sessionKey as string;
      await service.request('POST', `/v1/conversations/${enc(key)}/runtime/turns`, {
        body: { provider: 'codex', model: 'gpt-5', input: 'migrate the database' },
      });
      await drainTimedOut('gw-rt', key);
      const started = await gateway('gw-rt', 'started', { bootId: 'rt-1', autoContinue: true });
      expect(started.body.continued).toEqual([key]);
      expect((await queue(key)).overflow[0].continuation).toEqual({ reason: 'restart_timeout', bootId: 'rt-1', interruptedText: 'migrate the database' });
    });
  });
}

describe("auto-continue by configuration (AUTO_CONTINUE=false, the service's earlier default; RESUME_FRESHNESS_SECONDS=0, never stale)", () => {
  let service: TestApp;
  const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
  beforeAll(async () => {
    service = await startTestApp('pglite', { clock, env: { AUTO_CONTINUE: 'false', RESUME_FRESHNESS_SECONDS: '0' } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('continues only when a start asks, and a mark ten days old is still fresh', async () => {
    const gateway = (id: string, step: string, body: object = {}) => service.request('POST', `/v1/gateways/${id}/${step}`, { body });
    const keys: string[] = [];
    for (const gatewayId of ['gw-env-off', 'gw-env-on']) {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'slack', chatType: 'dm', chatId: gatewayId }, gatewayId },
      });
      const key = resolved.body.sessionKey as string;
      keys.push(key);
      await gateway(gatewayId, 'stopping', { activeKeys: [key], mode: 'restart' });
      await gateway(gatewayId, 'stopped', { drainTimedOut: [key] });
    }
    clock.advance(10 * 86_400_000);
    expect((await gateway('gw-env-off', 'started', { bootId: 'env-1' })).body.continued).toEqual([]);
    expect((await gateway('gw-env-on', 'started', { bootId: 'env-2', autoContinue: true })).body.continued).toEqual([keys[1]]);
    const again = await service.request('POST', '/v1/sessions/resolve', {
      body: { source: { platform: 'slack', chatType: 'dm', chatId: 'gw-env-off' }, gatewayId: 'gw-env-off' },
    });
    expect(again.body).toMatchObject({ created: false, state: 'resumed', entry: { resumePending: true } });
  });
});
