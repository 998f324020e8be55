// Opt-in reset policies through HTTP with a controlled clock: resolve-time resets, their answer and notice, busy
// conversations kept, a conversation's own policy, daily resets on a DST day, and the sweep ahead of the next message.
import { CommandBus } from '@nestjs/cqrs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ExpireConversationCommand } from '../../src/modules/conversations/commands/expireConversation.js';
import { ConversationResetSweep } from '../../src/modules/conversations/conversationResetSweep.js';
import { readServerSentEvents } from '../support/serverSentEvents.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;
const THREE_SECONDS = 0.05;

for (const backend of e2eBackends()) {
  describe(`reset policies: ${backend}`, () => {
    let service: TestApp;
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    let chat = 0;

    const resolve = (platform: string, chatId: string, extra: Record<string, unknown> = {}) =>
      service.request('POST', '/v1/sessions/resolve', { body: { source: { platform, chatType: 'dm', chatId }, ...extra } });
    const turn = (sessionId: string) =>
      service.request('POST', `/v1/sessions/${sessionId}/turns`, {
        body: {
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: 'hello' },
          ],
        },
      });
    const sessionEvents = async (sessionId: string) => (await service.request('GET', `/v1/sessions/${sessionId}/events`)).body.events as any[];
    const conversationEvents = async (key: string) => (await service.request('GET', `/v1/conversations/${enc(key)}/events`)).body.events as any[];
    const freshChat = () => `${backend}-chat-${++chat}`;

    beforeAll(async () => {
      service = await startTestApp(backend, {
        clock,
        env: {
          SESSION_RESET_BY_PLATFORM: JSON.stringify({
            telegram: { mode: 'idle', idle_minutes: THREE_SECONDS },
            api_server: { mode: 'idle', idle_minutes: THREE_SECONDS },
            nightly: { mode: 'daily', at_hour: 4 },
          }).replace('{', `{"__proto__": ${JSON.stringify({ mode: 'idle', idle_minutes: THREE_SECONDS })},`),
          SESSION_RESET_TIMEZONE: 'America/New_York',
          SESSION_RESET_SWEEP_INTERVAL_MS: '0',
          RUNTIME_WATCHDOG_INTERVAL_MS: '0',
        },
      });
    });
    afterAll(async () => {
      await service?.close();
    });

    it('off by default: a conversation idle for a year keeps its session', async () => {
      const first = await resolve('discord', freshChat());
      clock.advance(366 * 86_400_000);
      const again = await resolve('discord', first.body.origin?.chatId ?? first.body.entry.origin.chatId);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ sessionId: first.body.sessionId, created: false, wasAutoReset: false, autoResetReason: null, notice: null });
    });

    it('idle: a resolve past the window ends the session (reason idle), starts a new one and says so, with a notice', async () => {
      const chatId = freshChat();
      const first = await resolve('telegram', chatId);
      expect(first.body).toMatchObject({ created: true, wasAutoReset: false, notice: null });
      expect((await turn(first.body.sessionId)).status).toBe(201);
      clock.advance(2_000);
      expect((await resolve('telegram', chatId)).body).toMatchObject({ sessionId: first.body.sessionId, created: false });
      clock.advance(2_000); // 4 s since the turn, 2 s since the last resolve: activity, not the first message, counts
      expect((await resolve('telegram', chatId)).body.sessionId).toBe(first.body.sessionId);
      clock.advance(3_001);
      const reset = await resolve('telegram', chatId);
      expect(reset.status).toBe(201);
      expect(reset.body).toMatchObject({
        created: true,
        wasAutoReset: true,
        autoResetReason: 'idle',
        resetHadActivity: true,
        entry: { wasAutoReset: true, autoResetReason: 'idle', resetHadActivity: true },
      });
      expect(reset.body.sessionId).not.toBe(first.body.sessionId);
      expect(reset.body.notice).toMatch(/^Session reset after 3 seconds of inactivity\./);
      expect((await sessionEvents(first.body.sessionId)).at(-1)).toMatchObject({ type: 'SessionEnded', data: { reason: 'idle' } });
      expect((await conversationEvents(first.body.sessionKey)).at(-1)).toMatchObject({
        type: 'SessionBound',
        data: { reason: 'idle', previousSessionId: first.body.sessionId, previousHadActivity: true },
      });
      // The next message stays on the new session.
      expect((await resolve('telegram', chatId)).body).toMatchObject({ sessionId: reset.body.sessionId, created: false, wasAutoReset: false });
    });

    it('platforms named like Object members are platforms like any other: __proto__ has its own policy, constructor the default', async () => {
      const proto = await resolve('__proto__', freshChat());
      const unlisted = await Promise.all(['constructor', 'tostring', 'hasownproperty'].map((platform) => resolve(platform, freshChat())));
      clock.advance(3_001);
      const reset = await resolve('__proto__', proto.body.entry.origin.chatId);
      expect([reset.status, reset.text]).toEqual([201, expect.any(String)]);
      expect(reset.body).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'idle' });
      clock.advance(366 * 86_400_000);
      for (const first of unlisted) {
        const again = await resolve(first.body.entry.origin.platform, first.body.entry.origin.chatId);
        expect([again.status, again.body.sessionId, again.body.wasAutoReset], again.text).toEqual([200, first.body.sessionId, false]);
      }
    });

    it('no notice on an excluded platform, nor for a session that had no turn', async () => {
      const api = await resolve('api_server', freshChat());
      await turn(api.body.sessionId);
      const quiet = await resolve('telegram', freshChat());
      clock.advance(3_001);
      const apiReset = await resolve('api_server', api.body.entry.origin.chatId);
      expect(apiReset.body).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'idle', resetHadActivity: true, notice: null });
      const quietReset = await resolve('telegram', quiet.body.entry.origin.chatId);
      expect(quietReset.body).toMatchObject({ created: true, wasAutoReset: true, resetHadActivity: false, notice: null });
    });

    it('never resets a busy conversation: a ledger turn in flight, queued messages, a young background process, a runtime turn', async () => {
      const inFlight = await resolve('telegram', freshChat());
      expect((await service.request('POST', `/v1/sessions/${inFlight.body.sessionId}/turns/start`)).status).toBe(201);
      const queued = await resolve('telegram', freshChat());
      const enqueued = await service.request('POST', `/v1/conversations/${enc(queued.body.sessionKey)}/queue`, {
        body: { message: { text: 'later' }, mode: 'queue' },
      });
      expect(enqueued.status).toBe(202);
      const started = clock.now().toISOString();
      const background = await resolve('telegram', freshChat(), { activity: { backgroundProcessSince: started } });
      const runtime = await resolve('telegram', freshChat());
      const runtimeTurn = await service.request('POST', `/v1/conversations/${enc(runtime.body.sessionKey)}/runtime/turns`, {
        body: { provider: 'codex', model: 'gpt-5', input: 'go' },
      });
      expect(runtimeTurn.status).toBe(201);
      clock.advance(10_000);
      for (const busy of [inFlight, queued, background, runtime]) {
        const again = await resolve('telegram', busy.body.entry.origin.chatId);
        expect(again.body).toMatchObject({ sessionId: busy.body.sessionId, created: false });
      }
      // Past bg_process_max_age_hours (24) a forgotten process no longer counts (the report stays as it was).
      clock.advance(24 * 3_600_000);
      const stale = await resolve('telegram', background.body.entry.origin.chatId, { activity: { backgroundProcessSince: started } });
      expect(stale.body).toMatchObject({ created: true, autoResetReason: 'idle' });
      // Each report that changes what is known is an event of its own, for the audit.
      const types = (await conversationEvents(background.body.sessionKey)).map((event) => event.type);
      expect(types).toContain('BackgroundActivityReported');
    });

    it("a conversation's own policy (options.resetPolicy) is stored with it, wins over the server's, and null drops it", async () => {
      const chatId = freshChat();
      const own = { mode: 'idle', idle_minutes: THREE_SECONDS, notify: false };
      const first = await resolve('discord', chatId, { options: { resetPolicy: own } });
      const stored = await service.request('GET', `/v1/conversations/${enc(first.body.sessionKey)}`);
      expect(stored.body.resetPolicy).toEqual({
        mode: 'idle',
        at_hour: 4,
        idle_minutes: THREE_SECONDS,
        notify: false,
        notify_exclude_platforms: ['api_server', 'webhook'],
        bg_process_max_age_hours: 24,
      });
      clock.advance(3_001);
      // Later resolves need not repeat it.
      const reset = await resolve('discord', chatId);
      expect(reset.body).toMatchObject({ created: true, autoResetReason: 'idle', notice: null });
      const dropped = await resolve('discord', chatId, { options: { resetPolicy: null } });
      expect(dropped.body.entry.resetPolicy).toBeNull();
      clock.advance(60_000);
      expect((await resolve('discord', chatId)).body).toMatchObject({ sessionId: reset.body.sessionId, created: false });
      const types = (await conversationEvents(first.body.sessionKey)).map((event) => event.type);
      expect(types.filter((type) => type === 'ResetPolicySet')).toHaveLength(2);
    });

    it('refuses a bad policy or activity with 400 and writes nothing', async () => {
      const chatId = freshChat();
      for (const extra of [
        { options: { resetPolicy: { mode: 'weekly' } } },
        { options: { resetPolicy: { at_hour: 25 } } },
        { options: { resetPolicy: { idle_minutes: 0 } } },
        { options: { resetPolicy: { mode: 'idle', idle_minute: 5 } } },
        { activity: { backgroundProcessSince: 'yesterday' } },
      ]) {
        const refused = await resolve('discord', chatId, extra);
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      }
      expect((await resolve('discord', chatId)).status).toBe(201);
    });

    it('daily at 04:00 America/New_York across the spring-forward day: due at 08:00Z, not at 04:00Z or 07:30Z', async () => {
      clock.set(new Date('2026-03-08T03:00:00Z')); // 22:00 EST the evening before
      const chatId = freshChat();
      const first = await resolve('nightly', chatId);
      await turn(first.body.sessionId);
      clock.set(new Date('2026-03-08T07:30:00Z')); // 03:30 EDT, just after the jump
      expect((await resolve('nightly', chatId)).body).toMatchObject({ sessionId: first.body.sessionId, created: false });
      clock.set(new Date('2026-03-08T08:00:00Z')); // 04:00 EDT
      const reset = await resolve('nightly', chatId);
      expect(reset.body).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'daily', resetHadActivity: true });
      expect(reset.body.notice).toMatch(/daily reset at 04:00 \(America\/New_York\)/);
      clock.set(new Date('2026-03-09T07:59:59Z')); // 03:59:59 EDT the next day
      expect((await resolve('nightly', chatId)).body.created).toBe(false);
    });

    it('the sweep ends an expired session ahead of the next message, on the lifecycle stream; the next resolve starts the new one', async () => {
      clock.set(new Date('2026-03-10T12:00:00Z'));
      const sweep = service.app.get(ConversationResetSweep);
      const chatId = freshChat();
      const first = await resolve('telegram', chatId);
      await turn(first.body.sessionId);
      const busy = await resolve('telegram', freshChat());
      await service.request('POST', `/v1/sessions/${busy.body.sessionId}/turns/start`);
      const start = await service.lastPosition();
      clock.advance(3_001);
      // The read model nominates: let it catch up with the turns.
      await service.request('GET', `/v1/sessions?minPosition=${start}`);
      const swept = await sweep.sweep();
      expect(swept.expired).toContain(first.body.sessionKey);
      expect(swept.expired).not.toContain(busy.body.sessionKey);
      expect((await sessionEvents(first.body.sessionId)).at(-1)).toMatchObject({
        type: 'SessionEnded',
        data: { reason: 'idle' },
        metadata: { actor: 'reset-sweep' },
      });
      const expired = (await conversationEvents(first.body.sessionKey)).at(-1);
      expect(expired).toMatchObject({ type: 'SessionExpired', data: { sessionId: first.body.sessionId, reason: 'idle', hadActivity: true } });
      const entry = await service.request('GET', `/v1/conversations/${enc(first.body.sessionKey)}`);
      expect(entry.body).toMatchObject({ sessionId: first.body.sessionId, expiryFinalized: true });
      // The index and its sessions.json export say the same as the conversation, as Hermes' expiry_finalized.
      const sweptAt = await service.lastPosition();
      const indexed = await service.request('GET', `/v1/sessions/by-key/${enc(first.body.sessionKey)}?minPosition=${sweptAt}`);
      expect(indexed.body).toMatchObject({ sessionId: first.body.sessionId, expiryFinalized: true });
      const exported = await service.request('GET', `/v1/export/sessions.json?minPosition=${sweptAt}`);
      expect(exported.body[first.body.sessionKey]).toMatchObject({ session_id: first.body.sessionId, expiry_finalized: true });
      const streamed = await readServerSentEvents(
        `${service.url}/v1/events/stream?sessionKey=${enc(first.body.sessionKey)}&types=SessionExpired,SessionEnded&fromPosition=${start}`,
        {
          count: 2,
          timeoutMs: 5_000,
        },
      );
      expect(streamed.events.map((event) => event.event)).toEqual(['SessionExpired', 'SessionEnded']);
      // A second sweep finds nothing more to do.
      expect((await sweep.sweep()).expired).not.toContain(first.body.sessionKey);
      clock.advance(60_000);
      const next = await resolve('telegram', chatId);
      expect(next.body).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'idle', resetHadActivity: true });
      expect(next.body.notice).toMatch(/inactivity/);
      const rebound = await service.request('GET', `/v1/sessions/by-key/${enc(first.body.sessionKey)}?minPosition=${next.body.position}`);
      expect(rebound.body).toMatchObject({ sessionId: next.body.sessionId, expiryFinalized: false });
      expect((await sessionEvents(first.body.sessionId)).filter((event) => event.type === 'SessionEnded')).toHaveLength(1);
      expect((await conversationEvents(first.body.sessionKey)).at(-1)).toMatchObject({ type: 'SessionBound', data: { reason: 'idle' } });
    });

    it('a turn started while a resolve expires the session is never lost: either the start is refused or the session stays', async () => {
      const chats = Array.from({ length: 30 }, () => freshChat());
      const firsts = await Promise.all(chats.map((chatId) => resolve('telegram', chatId)));
      clock.advance(3_001);
      for (const [index, chatId] of chats.entries()) {
        const sessionId = firsts[index]!.body.sessionId;
        const [started, resolved] = await Promise.all([service.request('POST', `/v1/sessions/${sessionId}/turns/start`), resolve('telegram', chatId)]);
        expect([201, 409]).toContain(started.status);
        expect([200, 201]).toContain(resolved.status);
        if (started.status !== 201) {
          // Refused: the expiry came first, and the session is ended.
          expect(started.body.error.code).toBe('SESSION_ENDED');
          expect(resolved.body).toMatchObject({ created: true, autoResetReason: 'idle' });
          continue;
        }
        // Started: the busy guard holds, the resolve keeps the session and the turn records.
        expect(resolved.body).toMatchObject({ sessionId, created: false });
        expect((await turn(sessionId)).status).toBe(201);
      }
    });

    it('sweeps and resolves racing on one conversation end its session once and bind one new session', async () => {
      const chatId = freshChat();
      const first = await resolve('telegram', chatId);
      await turn(first.body.sessionId);
      clock.advance(3_001);
      const commands = service.app.get(CommandBus);
      const expire = () => commands.execute(new ExpireConversationCommand(first.body.sessionKey, { actor: 'reset-sweep' }));
      const [a, b, c, d] = await Promise.all([expire(), resolve('telegram', chatId), expire(), resolve('telegram', chatId)]);
      expect([a, c].filter((result) => result.expiredSessionId !== null).length).toBeLessThanOrEqual(1);
      expect(b.body.sessionId).toBe(d.body.sessionId);
      expect([b, d].filter((response) => response.body.created)).toHaveLength(1);
      expect((await sessionEvents(first.body.sessionId)).filter((event) => event.type === 'SessionEnded')).toHaveLength(1);
      const bound = (await conversationEvents(first.body.sessionKey)).filter((event) => event.type === 'SessionBound');
      expect(bound.map((event) => event.data.reason)).toEqual(['new', 'idle']);
    });
  });
}
