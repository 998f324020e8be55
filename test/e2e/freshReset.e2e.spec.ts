// isFreshReset after /reset: the first resolve answers true, exactly once, as Hermes' gateway reads it (session:start,
// topic and channel skills again); "once" under Idempotency-Key retries and under gateways racing.
import { expect, it } from 'vitest';
import type { SessionSource } from '../../src/client/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

forEachBackend(
  'isFreshReset is answered once after a reset',
  (ledger) => {
    let chat = 0;
    const source = (): SessionSource => ({ platform: 'telegram', chatType: 'dm', chatId: `fresh-${++chat}`, userName: 'Ann' });
    const resetOf = async (dm: SessionSource) => {
      const opened = await ledger.client.resolveSession({ source: dm });
      return ledger.client.resetConversation(opened.sessionKey);
    };

    it('answers true on the first resolve after the reset and false after it; the entry read later says false', async () => {
      const { client } = ledger;
      const dm = source();
      const reset = await resetOf(dm);
      const first = await client.resolveSession({ source: dm });
      expect(first).toMatchObject({ sessionId: reset.sessionId, created: false, entry: { isFreshReset: true } });
      expect((await client.resolveSession({ source: dm })).entry.isFreshReset).toBe(false);
      expect((await client.getConversation(reset.sessionKey)).isFreshReset).toBe(false);
    });

    it('a retry under the same Idempotency-Key replays true; another request is a later message and answers false', async () => {
      const { client } = ledger;
      const dm = source();
      await resetOf(dm);
      const idempotencyKey = `fresh-${chat}`;
      const first = await client.resolveSession({ source: dm }, { idempotencyKey });
      // Raw, for the header that says the answer is a replay.
      const retry = await ledger.service.request('POST', '/v1/sessions/resolve', { body: { source: dm }, headers: { 'idempotency-key': idempotencyKey } });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect([first.entry.isFreshReset, retry.body.entry.isFreshReset]).toEqual([true, true]);
      expect((await client.resolveSession({ source: dm }, { idempotencyKey: `fresh-${chat}-next` })).entry.isFreshReset).toBe(false);
    });

    it('gateways racing on the first message after the reset: exactly one is answered true', async () => {
      for (let round = 0; round < 5; round += 1) {
        const dm = source();
        const reset = await resetOf(dm);
        const answers = await Promise.all(['gw-a', 'gw-b', 'gw-c', 'gw-d'].map((gatewayId) => ledger.client.resolveSession({ source: dm, gatewayId })));
        for (const answer of answers) expect(answer.sessionId).toBe(reset.sessionId);
        expect(answers.filter((answer) => answer.entry.isFreshReset)).toHaveLength(1);
      }
    });

    it('a switch back is not a reset: the first resolve after it answers false', async () => {
      const { client } = ledger;
      const dm = source();
      const opened = await client.resolveSession({ source: dm });
      await client.resetConversation(opened.sessionKey);
      await client.switchSession(opened.sessionKey, opened.sessionId);
      expect((await client.resolveSession({ source: dm })).entry.isFreshReset).toBe(false);
    });
  },
  { env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' } },
);
