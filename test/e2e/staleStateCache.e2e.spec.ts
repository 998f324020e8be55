// Commands decide on this instance's cached state without a catch-up read: what another writer appended meanwhile must still count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { conversationDecider } from '../../src/modules/conversations/domain/conversationDecider.js';
import { followSessionBinding } from '../../src/modules/conversations/sessionBinding.js';
import { CommandContext } from '../../src/modules/commandContext.js';
import { newSessionId, randomSessionIdSuffix } from '../../src/modules/sessions/domain/sessionId.js';
import { sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;
const OTHER = { actor: 'another-instance' };

for (const backend of e2eBackends()) {
  describe(`decisions on a stale cache: ${backend}`, () => {
    let service: TestApp;
    /** Another instance on the same log: its own cache, so the service's cache never hears of its appends. */
    let other: StreamStateStore;
    let chat = 0;
    const now = () => new Date().toISOString();
    const turn = (sessionId: string, text: string, status = 'completed') =>
      service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [{ role: 'user', content: text }], status } });
    /** A conversation whose conversation and session states are both in the service's cache. */
    async function warmConversation(): Promise<{ sessionKey: string; sessionId: string }> {
      const source = { platform: 'telegram', chatType: 'dm', chatId: `stale-${backend}-${++chat}` };
      const resolved = await service.request('POST', '/v1/sessions/resolve', { body: { source } });
      expect(resolved.status).toBe(201);
      expect((await turn(resolved.body.sessionId, 'warm-up')).status).toBe(201);
      return { sessionKey: resolved.body.sessionKey, sessionId: resolved.body.sessionId };
    }

    beforeAll(async () => {
      service = await startTestApp(backend);
      other = new StreamStateStore(service.infrastructure.eventStore, new BoundedStateCache({ maxEntries: 100 }), systemClock);
    });
    afterAll(async () => {
      await service?.close();
    });

    it('records a turn after turns another instance recorded, at the revision after theirs', async () => {
      const { sessionId } = await warmConversation();
      const theirs = await other.handle(sessionStreamName(sessionId), sessionDecider, { type: 'StartTurn', now: now() }, OTHER);
      const ours = await turn(sessionId, 'after theirs');
      expect(ours.status, ours.text).toBe(201);
      expect(ours.body.revision).toBe(theirs.revision + 1);
      expect(ours.body.turnIndex).toBe(2);
      const events = await service.infrastructure.eventStore.readStream(sessionStreamName(sessionId));
      expect(events.map((event) => event.type).slice(-2)).toEqual(['TurnStarted', 'TurnRecorded']);
    });

    it('refuses a turn on a session another instance ended, and accepts one again once it reopened it', async () => {
      const { sessionId } = await warmConversation();
      await other.handle(sessionStreamName(sessionId), sessionDecider, { type: 'EndSession', reason: 'forced', now: now() }, OTHER);
      const refused = await turn(sessionId, 'on an ended session');
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('SESSION_ENDED');
      // The service now caches the ended state; the reopen is the other instance's again.
      await other.handle(sessionStreamName(sessionId), sessionDecider, { type: 'ReopenSession', now: now() }, OTHER);
      const accepted = await turn(sessionId, 'after the reopen');
      expect(accepted.status, accepted.text).toBe(201);
    });

    it('closes a session its conversation no longer points to (a binding whose SessionEnded was lost) before recording on it', async () => {
      const { sessionKey, sessionId } = await warmConversation();
      // A rebinding with no follow-up: what a crash between the conversation's append and the session's leaves.
      const replacement = newSessionId(new Date(), randomSessionIdSuffix());
      await other.handle(
        conversationStreamName(sessionKey),
        conversationDecider,
        { type: 'ResetConversation', newSessionId: replacement, currentSessionHadActivity: true, now: now() },
        OTHER,
      );
      const refused = await turn(sessionId, 'on a superseded session');
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('SESSION_ENDED');
      const events = await service.infrastructure.eventStore.readStream(sessionStreamName(sessionId));
      expect(events.at(-1)).toMatchObject({ type: 'SessionEnded', data: { reason: 'superseded' } });
    });

    it('clears a resume mark another instance set once a turn completes, and keeps it for a failed one', async () => {
      const { sessionKey, sessionId } = await warmConversation();
      await other.handle(
        conversationStreamName(sessionKey),
        conversationDecider,
        { type: 'MarkResumePending', reason: 'restart_interrupted', now: now() },
        OTHER,
      );
      expect((await turn(sessionId, 'failed', 'failed')).status).toBe(201);
      expect((await service.request('GET', `/v1/conversations/${enc(sessionKey)}`)).body.resumePending).toBe(true);
      await other.handle(conversationStreamName(sessionKey), conversationDecider, { type: 'ClearResumePending', reason: 'manual', now: now() }, OTHER);
      await other.handle(conversationStreamName(sessionKey), conversationDecider, { type: 'MarkResumePending', reason: 'shutdown_timeout', now: now() }, OTHER);
      expect((await turn(sessionId, 'completed')).status).toBe(201);
      const conversation = await service.infrastructure.eventStore.readStream(conversationStreamName(sessionKey));
      expect(conversation.at(-1)).toMatchObject({ type: 'ResumeCleared', data: { reason: 'turn_completed' } });
      expect((await service.request('GET', `/v1/conversations/${enc(sessionKey)}`)).body.resumePending).toBe(false);
    });

    it('answers a resolve with the session another instance bound', async () => {
      const { sessionKey, sessionId } = await warmConversation();
      const replacement = newSessionId(new Date(), randomSessionIdSuffix());
      await other.handle(
        conversationStreamName(sessionKey),
        conversationDecider,
        { type: 'ResetConversation', newSessionId: replacement, currentSessionHadActivity: true, now: now() },
        OTHER,
      );
      const source = { platform: 'telegram', chatType: 'dm', chatId: `stale-${backend}-${chat}` };
      const resolved = await service.request('POST', '/v1/sessions/resolve', { body: { source } });
      expect(resolved.body.sessionId).toBe(replacement);
      expect(resolved.body.sessionId).not.toBe(sessionId);
    });

    it('answers a warm resolve with the session as another instance left it, the binding unchanged', async () => {
      const { sessionId } = await warmConversation();
      const usage = { inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 };
      await other.handle(
        sessionStreamName(sessionId),
        sessionDecider,
        { type: 'RecordTurn', messages: [{ role: 'user', content: 'from the other instance' }], usage, status: 'completed', now: now() },
        OTHER,
      );
      const source = { platform: 'telegram', chatType: 'dm', chatId: `stale-${backend}-${chat}` };
      const resolved = await service.request('POST', '/v1/sessions/resolve', { body: { source } });
      expect(resolved.status, resolved.text).toBe(200);
      expect(resolved.body).toMatchObject({ sessionId, state: 'warm' });
      expect(resolved.body.entry).toMatchObject({ turnCount: 2, inputTokens: 7 });
    });

    it('ends a session whose binding was overtaken before the session was created', async () => {
      const { sessionKey } = await warmConversation();
      // The other instance binds a new session and is slow to create it: only the binding is written.
      const slow = newSessionId(new Date(), randomSessionIdSuffix());
      const binding = await other.handle(
        conversationStreamName(sessionKey),
        conversationDecider,
        { type: 'ResetConversation', newSessionId: slow, currentSessionHadActivity: true, now: now() },
        OTHER,
      );
      // Meanwhile a reset here binds another, and finds no session of the other's to end.
      const reset = await service.request('POST', `/v1/conversations/${enc(sessionKey)}/reset`, { body: {} });
      expect(reset.status, reset.text).toBe(200);
      expect(reset.body.sessionId).not.toBe(slow);
      expect(await service.infrastructure.eventStore.readStream(sessionStreamName(slow)).catch(() => [])).toEqual([]);
      // The other instance carries on and creates its session, which the conversation no longer points to.
      await followSessionBinding(service.app.get(CommandContext), sessionKey, binding.events, OTHER);
      const events = await service.infrastructure.eventStore.readStream(sessionStreamName(slow));
      expect(events.map((event) => [event.type, event.data.reason])).toEqual([
        ['SessionCreated', 'reset'],
        ['SessionEnded', 'superseded'],
      ]);
      const current = await service.request('GET', `/v1/conversations/${enc(sessionKey)}`);
      expect(current.body.sessionId).toBe(reset.body.sessionId);
    });
  });
}
