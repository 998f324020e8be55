// isFreshReset after /reset: the first resolve answers true, exactly once, as Hermes' gateway reads it (session:start,
// topic and channel skills again); "once" under Idempotency-Key retries and under gateways racing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`isFreshReset is answered once after a reset (${backend})`, () => {
    let service: TestApp;
    let chat = 0;
    const source = () => ({ platform: 'telegram', chatType: 'dm', chatId: `fresh-${++chat}`, userName: 'Ann' });
    const resolve = (body: object, headers: Record<string, string> = {}) => service.request('POST', '/v1/sessions/resolve', { body, headers });
    const resetOf = async (dm: object) => {
      const opened = await resolve({ source: dm });
      const reset = await service.request('POST', `/v1/conversations/${enc(opened.body.sessionKey)}/reset`);
      expect(reset.status, reset.text).toBe(200);
      return reset.body as { sessionKey: string; sessionId: string };
    };

    beforeAll(async () => {
      service = await startTestApp(backend, { env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' } });
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    it('answers true on the first resolve after the reset and false after it; the entry read later says false', async () => {
      const dm = source();
      const reset = await resetOf(dm);
      const first = await resolve({ source: dm });
      expect(first.body).toMatchObject({ sessionId: reset.sessionId, created: false, entry: { isFreshReset: true } });
      expect((await resolve({ source: dm })).body.entry.isFreshReset).toBe(false);
      expect((await service.request('GET', `/v1/conversations/${enc(reset.sessionKey)}`)).body.isFreshReset).toBe(false);
    });

    it('a retry under the same Idempotency-Key replays true; another request is a later message and answers false', async () => {
      const dm = source();
      await resetOf(dm);
      const key = { 'idempotency-key': `fresh-${chat}` };
      const first = await resolve({ source: dm }, key);
      const retry = await resolve({ source: dm }, key);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect([first.body.entry.isFreshReset, retry.body.entry.isFreshReset]).toEqual([true, true]);
      expect((await resolve({ source: dm }, { 'idempotency-key': `fresh-${chat}-next` })).body.entry.isFreshReset).toBe(false);
    });

    it('gateways racing on the first message after the reset: exactly one is answered true', async () => {
      for (let round = 0; round < 5; round += 1) {
        const dm = source();
        const reset = await resetOf(dm);
        const answers = await Promise.all(['gw-a', 'gw-b', 'gw-c', 'gw-d'].map((gatewayId) => resolve({ source: dm, gatewayId })));
        for (const answer of answers) expect(answer.body.sessionId, answer.text).toBe(reset.sessionId);
        expect(answers.filter((answer) => answer.body.entry.isFreshReset === true)).toHaveLength(1);
      }
    });

    it('a switch back is not a reset: the first resolve after it answers false', async () => {
      const dm = source();
      const opened = await resolve({ source: dm });
      await service.request('POST', `/v1/conversations/${enc(opened.body.sessionKey)}/reset`);
      const back = await service.request('POST', `/v1/conversations/${enc(opened.body.sessionKey)}/switch`, { body: { sessionId: opened.body.sessionId } });
      expect(back.status, back.text).toBe(200);
      expect((await resolve({ source: dm })).body.entry.isFreshReset).toBe(false);
    });
  });
}
