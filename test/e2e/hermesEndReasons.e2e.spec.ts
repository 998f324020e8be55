// End and reset reasons in Hermes' names where a Hermes tool reads them (a session's hermesEndReason, the sessions.json
// export's auto_reset_reason); the log and endReason keep the ledger's.
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { forEachBackend } from '../support/forEachBackend.js';

const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));

forEachBackend(
  "end reasons in Hermes' names",
  (ledger) => {
    let chat = 0;
    const resolve = () => ledger.client.resolveSession({ source: { platform: 'telegram', chatType: 'dm', chatId: `ends-${chat}` } });
    const ended = (sessionId: string) => ledger.client.getSession(sessionId);

    it('a reset session ends as session_reset, one switched away from as session_switch', async () => {
      chat += 1;
      const { client } = ledger;
      const first = await resolve();
      const reset = await client.resetConversation(first.sessionKey);
      expect(await ended(first.sessionId)).toMatchObject({ endReason: 'reset', hermesEndReason: 'session_reset' });
      await client.switchSession(first.sessionKey, first.sessionId);
      expect(await ended(reset.sessionId)).toMatchObject({ endReason: 'switch', hermesEndReason: 'session_switch' });
      expect(await ended(first.sessionId)).toMatchObject({ endReason: null, hermesEndReason: null });
    });

    it('an expired resume mark is resume_pending_expired in the export and the ended session, resume_expired in the API entry', async () => {
      chat += 1;
      const { client } = ledger;
      const first = await resolve();
      await client.markResumePending(first.sessionKey, 'restart_timeout');
      clock.advance(2_000);
      const next = await resolve();
      expect(next.sessionId).not.toBe(first.sessionId);
      expect(next.entry.autoResetReason).toBe('resume_expired');
      expect(await ended(first.sessionId)).toMatchObject({ endReason: 'resume_expired', hermesEndReason: 'resume_pending_expired' });
      const exported = await client.exportSessionsJson();
      expect(exported[next.sessionKey]).toMatchObject({ session_id: next.sessionId, was_auto_reset: true, auto_reset_reason: 'resume_pending_expired' });
    });
  },
  { clock, env: { RESUME_FRESHNESS_SECONDS: '1', RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' } },
);
