// End and reset reasons in Hermes' names where a Hermes tool reads them (a session's hermesEndReason, the sessions.json
// export's auto_reset_reason); the log and endReason keep the ledger's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`end reasons in Hermes' names (${backend})`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    let chat = 0;
    const resolve = async () => {
      const answer = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'telegram', chatType: 'dm', chatId: `ends-${chat}` } },
      });
      expect(answer.status, answer.text).toBeLessThan(300);
      return answer.body as { sessionKey: string; sessionId: string; position: number; entry: { autoResetReason: string | null } };
    };
    const ended = async (sessionId: string) =>
      (await service.request('GET', `/v1/sessions/${sessionId}`)).body as { endReason: string; hermesEndReason: string };

    beforeAll(async () => {
      service = await startTestApp(backend, { clock, env: { RESUME_FRESHNESS_SECONDS: '1', RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' } });
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    it('a reset session ends as session_reset, one switched away from as session_switch', async () => {
      chat += 1;
      const first = await resolve();
      const reset = await service.request('POST', `/v1/conversations/${enc(first.sessionKey)}/reset`);
      expect(await ended(first.sessionId)).toMatchObject({ endReason: 'reset', hermesEndReason: 'session_reset' });
      await service.request('POST', `/v1/conversations/${enc(first.sessionKey)}/switch`, { body: { sessionId: first.sessionId } });
      expect(await ended(reset.body.sessionId)).toMatchObject({ endReason: 'switch', hermesEndReason: 'session_switch' });
      expect((await service.request('GET', `/v1/sessions/${first.sessionId}`)).body).toMatchObject({ endReason: null, hermesEndReason: null });
    });

    it('an expired resume mark is resume_pending_expired in the export and the ended session, resume_expired in the API entry', async () => {
      chat += 1;
      const first = await resolve();
      expect((await service.request('POST', `/v1/conversations/${enc(first.sessionKey)}/resume-pending`, { body: { reason: 'restart_timeout' } })).status).toBe(
        200,
      );
      clock.advance(2_000);
      const next = await resolve();
      expect(next.sessionId).not.toBe(first.sessionId);
      expect(next.entry.autoResetReason).toBe('resume_expired');
      expect(await ended(first.sessionId)).toMatchObject({ endReason: 'resume_expired', hermesEndReason: 'resume_pending_expired' });
      const exported = await service.request('GET', `/v1/export/sessions.json?minPosition=${next.position}`);
      expect(exported.body[next.sessionKey]).toMatchObject({ session_id: next.sessionId, was_auto_reset: true, auto_reset_reason: 'resume_pending_expired' });
    });
  });
}
