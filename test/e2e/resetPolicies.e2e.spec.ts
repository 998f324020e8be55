// Opt-in reset policies through HTTP with a controlled clock: resolve-time resets, their answer and notice, busy
// conversations kept, a conversation's own policy, daily resets on a DST day, and the sweep ahead of the next message.
import { CommandBus } from '@nestjs/cqrs';
import { expect, it } from 'vitest';
import type { ResolveRequest } from '../../src/client/index.js';
import { ExpireConversationCommand } from '../../src/modules/conversations/commands/expireConversation.js';
import { ConversationResetSweep } from '../../src/modules/conversations/conversationResetSweep.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { readServerSentEvents } from '../support/serverSentEvents.js';
import { sourceOn } from '../support/sources.js';

const enc = encodeURIComponent;
const THREE_SECONDS = 0.05;

const clockOf = clockPerBackend(new Date('2026-03-01T12:00:00Z'));

forEachBackend(
  'reset policies',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    let chat = 0;

    const resolve = (platform: string, chatId: string, extra: Omit<ResolveRequest, 'source'> = {}) =>
      ledger.client.resolveSession({ source: sourceOn(platform, chatId), ...extra });
    const turn = (sessionId: string) =>
      ledger.client.recordTurn(sessionId, {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
      });
    const sessionEvents = async (sessionId: string) => (await ledger.client.sessionEvents(sessionId)).events;
    const conversationEvents = async (key: string) => (await ledger.client.conversationEvents(key)).events;
    const freshChat = () => `${ledger.backend}-chat-${++chat}`;

    it('off by default: a conversation idle for a year keeps its session', async () => {
      const first = await resolve('discord', freshChat());
      clock.advance(366 * 86_400_000);
      const again = await resolve('discord', first.entry.origin.chatId!);
      expect(again).toMatchObject({ sessionId: first.sessionId, created: false, wasAutoReset: false, autoResetReason: null, notice: null });
    });

    it('idle: a resolve past the window ends the session (reason idle), starts a new one and says so, with a notice', async () => {
      const chatId = freshChat();
      const first = await resolve('telegram', chatId);
      expect(first).toMatchObject({ created: true, wasAutoReset: false, notice: null });
      await turn(first.sessionId);
      clock.advance(2_000);
      expect(await resolve('telegram', chatId)).toMatchObject({ sessionId: first.sessionId, created: false });
      clock.advance(2_000); // 4 s since the turn, 2 s since the last resolve: activity, not the first message, counts
      expect((await resolve('telegram', chatId)).sessionId).toBe(first.sessionId);
      clock.advance(3_001);
      const reset = await resolve('telegram', chatId);
      expect(reset).toMatchObject({
        created: true,
        wasAutoReset: true,
        autoResetReason: 'idle',
        resetHadActivity: true,
        entry: { wasAutoReset: true, autoResetReason: 'idle', resetHadActivity: true },
      });
      expect(reset.sessionId).not.toBe(first.sessionId);
      expect(reset.notice).toMatch(/^Session reset after 3 seconds of inactivity\./);
      expect((await sessionEvents(first.sessionId)).at(-1)).toMatchObject({ type: 'SessionEnded', data: { reason: 'idle' } });
      expect((await conversationEvents(first.sessionKey)).at(-1)).toMatchObject({
        type: 'SessionBound',
        data: { reason: 'idle', previousSessionId: first.sessionId, previousHadActivity: true },
      });
      // The next message stays on the new session.
      expect(await resolve('telegram', chatId)).toMatchObject({ sessionId: reset.sessionId, created: false, wasAutoReset: false });
    });

    it('platforms named like Object members are platforms like any other: __proto__ has its own policy, constructor the default', async () => {
      const proto = await resolve('__proto__', freshChat());
      const unlisted = await Promise.all(['constructor', 'tostring', 'hasownproperty'].map((platform) => resolve(platform, freshChat())));
      clock.advance(3_001);
      const reset = await resolve('__proto__', proto.entry.origin.chatId!);
      expect(reset).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'idle' });
      clock.advance(366 * 86_400_000);
      for (const first of unlisted) {
        const again = await resolve(first.entry.origin.platform, first.entry.origin.chatId!);
        expect([again.created, again.sessionId, again.wasAutoReset], JSON.stringify(again)).toEqual([false, first.sessionId, false]);
      }
    });

    it('no notice on an excluded platform, nor for a session that had no turn', async () => {
      const api = await resolve('api_server', freshChat());
      await turn(api.sessionId);
      const quiet = await resolve('telegram', freshChat());
      clock.advance(3_001);
      const apiReset = await resolve('api_server', api.entry.origin.chatId!);
      expect(apiReset).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'idle', resetHadActivity: true, notice: null });
      const quietReset = await resolve('telegram', quiet.entry.origin.chatId!);
      expect(quietReset).toMatchObject({ created: true, wasAutoReset: true, resetHadActivity: false, notice: null });
    });

    it('never resets a busy conversation: a ledger turn in flight, queued messages, a young background process, a runtime turn', async () => {
      const { client } = ledger;
      const inFlight = await resolve('telegram', freshChat());
      await client.startTurn(inFlight.sessionId);
      const queued = await resolve('telegram', freshChat());
      await client.enqueue(queued.sessionKey, { message: { text: 'later' }, mode: 'queue' });
      const started = clock.now().toISOString();
      const background = await resolve('telegram', freshChat(), { activity: { backgroundProcessSince: started } });
      const runtime = await resolve('telegram', freshChat());
      await client.runtimeTurn(runtime.sessionKey, { provider: 'codex', model: 'gpt-5', input: 'go' });
      clock.advance(10_000);
      for (const busy of [inFlight, queued, background, runtime]) {
        const again = await resolve('telegram', busy.entry.origin.chatId!);
        expect(again).toMatchObject({ sessionId: busy.sessionId, created: false });
      }
      // Past bg_process_max_age_hours (24) a forgotten process no longer counts (the report stays as it was).
      clock.advance(24 * 3_600_000);
      const stale = await resolve('telegram', background.entry.origin.chatId!, { activity: { backgroundProcessSince: started } });
      expect(stale).toMatchObject({ created: true, autoResetReason: 'idle' });
      // Each report that changes what is known is an event of its own, for the audit.
      const types = (await conversationEvents(background.sessionKey)).map((event) => event.type);
      expect(types).toContain('BackgroundActivityReported');
    });

    it("a conversation's own policy (options.resetPolicy) is stored with it, wins over the server's, and null drops it", async () => {
      const chatId = freshChat();
      const own = { mode: 'idle', idle_minutes: THREE_SECONDS, notify: false } as const;
      const first = await resolve('discord', chatId, { options: { resetPolicy: own } });
      const stored = await ledger.client.getConversation(first.sessionKey);
      expect(stored.resetPolicy).toEqual({
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
      expect(reset).toMatchObject({ created: true, autoResetReason: 'idle', notice: null });
      const dropped = await resolve('discord', chatId, { options: { resetPolicy: null } });
      expect(dropped.entry.resetPolicy).toBeNull();
      clock.advance(60_000);
      expect(await resolve('discord', chatId)).toMatchObject({ sessionId: reset.sessionId, created: false });
      const types = (await conversationEvents(first.sessionKey)).map((event) => event.type);
      expect(types.filter((type) => type === 'ResetPolicySet')).toHaveLength(2);
    });

    it('refuses a bad policy or activity with 400 and writes nothing', async () => {
      const chatId = freshChat();
      // Raw: policies and activity the typed client never sends.
      for (const extra of [
        { options: { resetPolicy: { mode: 'weekly' } } },
        { options: { resetPolicy: { at_hour: 25 } } },
        { options: { resetPolicy: { idle_minutes: 0 } } },
        { options: { resetPolicy: { mode: 'idle', idle_minute: 5 } } },
        { activity: { backgroundProcessSince: 'yesterday' } },
      ]) {
        const refused = await ledger.service.request('POST', '/v1/sessions/resolve', { body: { source: sourceOn('discord', chatId), ...extra } });
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      }
      expect((await resolve('discord', chatId)).created).toBe(true);
    });

    it('daily at 04:00 America/New_York across the spring-forward day: due at 08:00Z, not at 04:00Z or 07:30Z', async () => {
      clock.set(new Date('2026-03-08T03:00:00Z')); // 22:00 EST the evening before
      const chatId = freshChat();
      const first = await resolve('nightly', chatId);
      await turn(first.sessionId);
      clock.set(new Date('2026-03-08T07:30:00Z')); // 03:30 EDT, just after the jump
      expect(await resolve('nightly', chatId)).toMatchObject({ sessionId: first.sessionId, created: false });
      clock.set(new Date('2026-03-08T08:00:00Z')); // 04:00 EDT
      const reset = await resolve('nightly', chatId);
      expect(reset).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'daily', resetHadActivity: true });
      expect(reset.notice).toMatch(/daily reset at 04:00 \(America\/New_York\)/);
      clock.set(new Date('2026-03-09T07:59:59Z')); // 03:59:59 EDT the next day
      expect((await resolve('nightly', chatId)).created).toBe(false);
    });

    it('the sweep ends an expired session ahead of the next message, on the lifecycle stream; the next resolve starts the new one', async () => {
      clock.set(new Date('2026-03-10T12:00:00Z'));
      const { client, service } = ledger;
      const sweep = service.app.get(ConversationResetSweep);
      const chatId = freshChat();
      const first = await resolve('telegram', chatId);
      await turn(first.sessionId);
      const busy = await resolve('telegram', freshChat());
      await client.startTurn(busy.sessionId);
      const start = await service.lastPosition();
      clock.advance(3_001);
      // The read model nominates: let it catch up with the turns.
      await client.listSessions({}, { minPosition: start });
      const swept = await sweep.sweep();
      expect(swept.expired).toContain(first.sessionKey);
      expect(swept.expired).not.toContain(busy.sessionKey);
      expect((await sessionEvents(first.sessionId)).at(-1)).toMatchObject({
        type: 'SessionEnded',
        data: { reason: 'idle' },
        metadata: { actor: 'reset-sweep' },
      });
      const expired = (await conversationEvents(first.sessionKey)).at(-1);
      expect(expired).toMatchObject({ type: 'SessionExpired', data: { sessionId: first.sessionId, reason: 'idle', hadActivity: true } });
      expect(await client.getConversation(first.sessionKey)).toMatchObject({ sessionId: first.sessionId, expiryFinalized: true });
      // The index and its sessions.json export say the same as the conversation, as Hermes' expiry_finalized.
      const sweptAt = { minPosition: await service.lastPosition() };
      expect(await client.sessionByKey(first.sessionKey, sweptAt)).toMatchObject({ sessionId: first.sessionId, expiryFinalized: true });
      const exported = await client.exportSessionsJson(sweptAt);
      expect(exported[first.sessionKey]).toMatchObject({ session_id: first.sessionId, expiry_finalized: true });
      // Raw: the stream's event names as sent.
      const streamed = await readServerSentEvents(
        `${service.url}/v1/events/stream?sessionKey=${enc(first.sessionKey)}&types=SessionExpired,SessionEnded&fromPosition=${start}`,
        {
          count: 2,
          timeoutMs: 5_000,
        },
      );
      expect(streamed.events.map((event) => event.event)).toEqual(['SessionExpired', 'SessionEnded']);
      // A second sweep finds nothing more to do.
      expect((await sweep.sweep()).expired).not.toContain(first.sessionKey);
      clock.advance(60_000);
      const next = await resolve('telegram', chatId);
      expect(next).toMatchObject({ created: true, wasAutoReset: true, autoResetReason: 'idle', resetHadActivity: true });
      expect(next.notice).toMatch(/inactivity/);
      const rebound = await client.sessionByKey(first.sessionKey, { minPosition: next.position });
      expect(rebound).toMatchObject({ sessionId: next.sessionId, expiryFinalized: false });
      expect((await sessionEvents(first.sessionId)).filter((event) => event.type === 'SessionEnded')).toHaveLength(1);
      expect((await conversationEvents(first.sessionKey)).at(-1)).toMatchObject({ type: 'SessionBound', data: { reason: 'idle' } });
    });

    it('a turn started while a resolve expires the session is never lost: either the start is refused or the session stays', async () => {
      const chats = Array.from({ length: 30 }, () => freshChat());
      const firsts = await Promise.all(chats.map((chatId) => resolve('telegram', chatId)));
      clock.advance(3_001);
      for (const [index, chatId] of chats.entries()) {
        const sessionId = firsts[index]!.sessionId;
        // The start's refusal, or undefined when it started.
        const [refused, resolved] = await Promise.all([
          ledger.client.startTurn(sessionId).then(
            () => undefined,
            (error: unknown) => error,
          ),
          resolve('telegram', chatId),
        ]);
        if (refused !== undefined) {
          // Refused: the expiry came first, and the session is ended.
          expect(refused).toMatchObject({ status: 409, code: 'SESSION_ENDED' });
          expect(resolved).toMatchObject({ created: true, autoResetReason: 'idle' });
          continue;
        }
        // Started: the busy guard holds, the resolve keeps the session and the turn records.
        expect(resolved).toMatchObject({ sessionId, created: false });
        await turn(sessionId);
      }
    });

    it('sweeps and resolves racing on one conversation end its session once and bind one new session', async () => {
      const chatId = freshChat();
      const first = await resolve('telegram', chatId);
      await turn(first.sessionId);
      clock.advance(3_001);
      const commands = ledger.service.app.get(CommandBus);
      const expire = () => commands.execute(new ExpireConversationCommand(first.sessionKey, { actor: 'reset-sweep' }));
      const [a, b, c, d] = await Promise.all([expire(), resolve('telegram', chatId), expire(), resolve('telegram', chatId)]);
      expect([a, c].filter((result) => result.expiredSessionId !== null).length).toBeLessThanOrEqual(1);
      expect(b.sessionId).toBe(d.sessionId);
      expect([b, d].filter((response) => response.created)).toHaveLength(1);
      expect((await sessionEvents(first.sessionId)).filter((event) => event.type === 'SessionEnded')).toHaveLength(1);
      const bound = (await conversationEvents(first.sessionKey)).filter((event) => event.type === 'SessionBound');
      expect(bound.map((event) => event.data.reason)).toEqual(['new', 'idle']);
    });
  },
  (backend) => ({
    clock: clockOf(backend),
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
  }),
);
