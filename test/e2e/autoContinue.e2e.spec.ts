// Auto-continue after an unclean restart over real HTTP: one continuation at the head of each resumed queue, once per boot, none for stale marks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerClient } from '../../src/client/index.js';
import { ManualClock } from '../../src/clock.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const clockOf = clockPerBackend(new Date('2026-06-01T12:00:00Z'));

forEachBackend(
  'auto-continue',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    let chat = 0;
    const resolve = (gatewayId: string) => ledger.client.resolveSession({ source: sourceOn('slack', `${ledger.backend}-ac-${++chat}`), gatewayId });
    const enqueue = (key: string, id: string, text: string) => ledger.client.enqueue(key, { message: { id, text }, mode: 'queue' });
    const next = async (key: string) => (await ledger.client.nextQueued(key))!;
    const queue = (key: string) => ledger.client.getQueue(key);

    /** A drain that timed out with the conversation's turn in flight: its resume mark says restart_timeout. */
    const drainTimedOut = async (gatewayId: string, key: string) => {
      await ledger.client.gatewayStopping(gatewayId, { activeKeys: [key], mode: 'restart' });
      await ledger.client.gatewayStopped(gatewayId, { drainTimedOut: [key] });
    };

    it('puts one continuation at the head of the queue, with the reason and the interrupted text, once per boot', async () => {
      const { client } = ledger;
      const conversation = await resolve('gw-ac');
      const key = conversation.sessionKey;
      await enqueue(key, 'task', 'build the quarterly report');
      expect((await next(key)).message.id).toBe('task');
      await drainTimedOut('gw-ac', key);
      // A message that arrived while the gateway was down waits in the queue already.
      await enqueue(key, 'early', 'are you there?');

      clock.advance(5_000);
      // The start route answers 200 and nothing else when it succeeds.
      const started = await client.gatewayStarted('gw-ac', { bootId: 'boot-1', autoContinue: true });
      expect(started).toMatchObject({ cleanShutdown: false, continued: [key], resume: [{ sessionKey: key, reason: 'restart_timeout' }] });
      const waiting = await queue(key);
      expect(waiting.depth).toBe(2);
      expect(waiting.overflow[0]).toMatchObject({
        id: 'auto-continue:boot-1',
        kind: 'auto_continue',
        mode: 'queue',
        continuation: { reason: 'restart_timeout', bootId: 'boot-1', interruptedText: 'build the quarterly report' },
      });
      expect(waiting.overflow[0]!.text).toContain('The interrupted request was: build the quarterly report');

      // Repeated, the start answers the same and queues nothing more; a later boot finds the continuation still waiting.
      const again = await client.gatewayStarted('gw-ac', { bootId: 'boot-1', autoContinue: true });
      expect(again).toMatchObject({ replayed: true, continued: [key] });
      expect((await queue(key)).depth).toBe(2);

      // Messages that arrive now queue behind it; the gateway's loop takes the continuation first.
      await enqueue(key, 'late', 'hello?');
      expect([(await next(key)).message.id, (await next(key)).message.id, (await next(key)).message.id]).toEqual(['auto-continue:boot-1', 'early', 'late']);

      const { events } = await client.conversationEvents(key, { fromRevision: 0, limit: 100 });
      expect(events.filter((event) => event.type === 'ContinuationQueued')).toHaveLength(1);
    });

    it('continues by default, as Hermes does (AUTO_CONTINUE defaults to true)', async () => {
      const key = (await resolve('gw-default')).sessionKey;
      await drainTimedOut('gw-default', key);
      const started = await ledger.client.gatewayStarted('gw-default', { bootId: 'default-1' });
      expect(started).toMatchObject({ resume: [{ sessionKey: key }], continued: [key] });
      expect((await queue(key)).overflow[0]).toMatchObject({ kind: 'auto_continue' });
    });

    it('continues a conversation whose last message is a tool result nobody answered, without a resume mark, once', async () => {
      const { client } = ledger;
      const conversation = await resolve('gw-tail');
      const key = conversation.sessionKey;
      // The turn route answers 201 and nothing else when it succeeds.
      await client.recordTurn(conversation.sessionId, {
        messages: [
          { role: 'user', content: 'list the files' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
          { role: 'tool', content: 'a.txt b.txt', toolCallId: 'call-1' },
        ],
        status: 'interrupted',
      });
      const answered = await resolve('gw-tail');
      await client.recordTurn(answered.sessionId, {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
      });
      await client.gatewayStopping('gw-tail', { activeKeys: [], mode: 'restart' });
      await client.gatewayStopped('gw-tail', { drainTimedOut: [] });
      const started = await client.gatewayStarted('gw-tail', { bootId: 'tail-1' });
      expect(started).toMatchObject({ cleanShutdown: true, resume: [{ sessionKey: key, reason: 'restart_interrupted' }], continued: [key] });
      expect(started.resume.map((candidate) => candidate.sessionKey)).not.toContain(answered.sessionKey);
      expect((await queue(key)).overflow[0]).toMatchObject({ kind: 'auto_continue', continuation: { reason: 'restart_interrupted', bootId: 'tail-1' } });
      // A later boot with the continuation still waiting queues no second one.
      await client.gatewayStarted('gw-tail', { bootId: 'tail-2' });
      expect((await queue(key)).depth).toBe(1);
    });

    it('queues nothing when a start says autoContinue false, for a clean stop, or for a resume mark older than RESUME_FRESHNESS_SECONDS', async () => {
      const { client, service } = ledger;
      const plain = (await resolve('gw-plain')).sessionKey;
      await drainTimedOut('gw-plain', plain);
      const started = await client.gatewayStarted('gw-plain', { bootId: 'plain-1', autoContinue: false });
      expect(started).toMatchObject({ resume: [{ sessionKey: plain }], continued: [] });
      expect((await queue(plain)).depth).toBe(0);

      const stale = (await resolve('gw-stale')).sessionKey;
      await drainTimedOut('gw-stale', stale);
      clock.advance(601_000);
      const late = await client.gatewayStarted('gw-stale', { bootId: 'stale-1', autoContinue: true });
      expect(late).toMatchObject({ resume: [], continued: [] });
      expect((await queue(stale)).depth).toBe(0);

      const clean = (await resolve('gw-clean')).sessionKey;
      await client.gatewayStopping('gw-clean', { activeKeys: [], mode: 'shutdown' });
      await client.gatewayStopped('gw-clean', { drainTimedOut: [] });
      expect(await client.gatewayStarted('gw-clean', { bootId: 'clean-1', autoContinue: true })).toMatchObject({ cleanShutdown: true, continued: [] });
      expect((await queue(clean)).depth).toBe(0);

      // A flag that is no boolean: a body the typed client never sends.
      expect((await service.request('POST', '/v1/gateways/gw-clean/started', { body: { autoContinue: 'yes' } })).status).toBe(400);
    });

    it('quotes the runtime turn the restart cut short', async () => {
      const { client } = ledger;
      const key = (await resolve('gw-rt')).sessionKey;
      await client.runtimeTurn(key, { provider: 'codex', model: 'gpt-5', input: 'migrate the database' });
      await drainTimedOut('gw-rt', key);
      const started = await client.gatewayStarted('gw-rt', { bootId: 'rt-1', autoContinue: true });
      expect(started.continued).toEqual([key]);
      expect((await queue(key)).overflow[0]!.continuation).toEqual({ reason: 'restart_timeout', bootId: 'rt-1', interruptedText: 'migrate the database' });
    });
  },
  (backend) => ({ clock: clockOf(backend), env: { RESUME_FRESHNESS_SECONDS: '600' } }),
);

// A configuration, not a backend, is under test here: one PGlite service, as before, through the typed client.
describe("auto-continue by configuration (AUTO_CONTINUE=false, the service's earlier default; RESUME_FRESHNESS_SECONDS=0, never stale)", () => {
  let service: TestApp;
  let client: LedgerClient;
  const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
  beforeAll(async () => {
    service = await startTestApp('pglite', { clock, env: { AUTO_CONTINUE: 'false', RESUME_FRESHNESS_SECONDS: '0' } });
    client = new LedgerClient({ baseUrl: service.url, retry: { maxAttempts: 1 }, idempotencyKeys: false });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('continues only when a start asks, and a mark ten days old is still fresh', async () => {
    const keys: string[] = [];
    for (const gatewayId of ['gw-env-off', 'gw-env-on']) {
      const { sessionKey: key } = await client.resolveSession({ source: sourceOn('slack', gatewayId), gatewayId });
      keys.push(key);
      await client.gatewayStopping(gatewayId, { activeKeys: [key], mode: 'restart' });
      await client.gatewayStopped(gatewayId, { drainTimedOut: [key] });
    }
    clock.advance(10 * 86_400_000);
    expect((await client.gatewayStarted('gw-env-off', { bootId: 'env-1' })).continued).toEqual([]);
    expect((await client.gatewayStarted('gw-env-on', { bootId: 'env-2', autoContinue: true })).continued).toEqual([keys[1]]);
    const again = await client.resolveSession({ source: sourceOn('slack', 'gw-env-off'), gatewayId: 'gw-env-off' });
    expect(again).toMatchObject({ created: false, state: 'resumed', entry: { resumePending: true } });
  });
});
