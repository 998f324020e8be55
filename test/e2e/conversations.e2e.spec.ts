// Gateway lifecycle over real HTTP: resolve precedence, the 50-way race, reset/switch/suspend/resume, turns, transcripts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`conversations: ${backend}`, () => {
    let service: TestApp;
    let chat = 0;
    const dm = () => ({ platform: 'telegram', chatType: 'dm', chatId: `${backend}-${++chat}`, userId: 'u1', userName: 'Alice' });
    const resolve = (source: object, extra: object = {}) => service.request('POST', '/v1/sessions/resolve', { body: { source, ...extra } });
    const turn = (sessionId: string, body: object) => service.request('POST', `/v1/sessions/${sessionId}/turns`, { body });
    const userTurn = (sessionId: string, text: string, usage: object = {}) =>
      turn(sessionId, {
        messages: [
          { role: 'user', content: text },
          { role: 'assistant', content: `re: ${text}` },
        ],
        usage,
      });

    beforeAll(async () => {
      service = await startTestApp(backend);
    });
    afterAll(async () => {
      await service?.close();
    });

    it('creates a session on first resolve (cold, 201) and returns it warm afterwards', async () => {
      const source = dm();
      const first = await resolve(source);
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ sessionKey: `agent:main:telegram:dm:${source.chatId}`, state: 'cold', created: true });
      expect(first.body.sessionId).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
      expect(first.body.entry).toMatchObject({ platform: 'telegram', chatType: 'dm', gatewayId: 'default', suspended: false, inputTokens: 0 });
      expect(first.body.position).toBeGreaterThan(0);
      const second = await resolve(source);
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ sessionId: first.body.sessionId, state: 'warm', created: false });
    });

    it('writes a new conversation (or a reset) and its new session in one transaction: no binding is ever seen without its session', async () => {
      const created = await resolve(dm());
      expect(created.status).toBe(201);
      const store = service.infrastructure.eventStore;
      const [bound] = (await store.readStream(conversationStreamName(created.body.sessionKey))).filter((event) => event.type === 'SessionBound');
      const [opened] = await store.readStream(sessionStreamName(created.body.sessionId));
      expect(opened).toMatchObject({ type: 'SessionCreated', revision: 0 });
      // A position is (transaction id << 16) + the event's index in its transaction.
      expect(Math.floor(opened!.position / 65_536)).toBe(Math.floor(bound!.position / 65_536));
      expect(opened!.position).toBeGreaterThan(bound!.position);
      expect(created.body.position).toBe(opened!.position);
      // A reset opens its new session the same way.
      const reset = await service.request('POST', `/v1/conversations/${enc(created.body.sessionKey)}/reset`, { body: {} });
      expect(reset.status, reset.text).toBe(200);
      const rebound = (await store.readStream(conversationStreamName(created.body.sessionKey))).filter((event) => event.type === 'SessionBound').at(-1)!;
      const [reopened] = await store.readStream(sessionStreamName(reset.body.sessionId));
      expect(reopened).toMatchObject({ type: 'SessionCreated', revision: 0 });
      expect(Math.floor(reopened!.position / 65_536)).toBe(Math.floor(rebound.position / 65_536));
      expect((await store.readStream(sessionStreamName(created.body.sessionId))).map((event) => event.type)).toEqual(['SessionCreated', 'SessionEnded']);
    });

    it('gives 50 concurrent resolves of a new key exactly one session', async () => {
      const source = dm();
      const responses = await Promise.all(Array.from({ length: 50 }, () => resolve(source)));
      expect(responses.every((response) => response.status === 200 || response.status === 201)).toBe(true);
      expect(new Set(responses.map((response) => response.body.sessionId)).size).toBe(1);
      expect(responses.filter((response) => response.body.created)).toHaveLength(1);
      const events = await service.infrastructure.eventStore.readStream(`conversation-${responses[0]!.body.sessionKey}`);
      expect(events.filter((event) => event.type === 'SessionBound')).toHaveLength(1);
      const sessionEvents = await service.infrastructure.eventStore.readStream(`session-${responses[0]!.body.sessionId}`);
      expect(sessionEvents.filter((event) => event.type === 'SessionCreated')).toHaveLength(1);
    });

    it('records turns, accumulates counters and serves the transcript', async () => {
      const { body } = await resolve(dm());
      const first = await userTurn(body.sessionId, 'hello', { inputTokens: 10, outputTokens: 5, costUsd: 0.1, lastPromptTokens: 10 });
      expect(first.status).toBe(201);
      expect(first.body.turnIndex).toBe(1);
      const second = await userTurn(body.sessionId, 'again', { inputTokens: 20, outputTokens: 7, cacheReadTokens: 3, costUsd: 0.2 });
      expect(second.body).toMatchObject({
        turnIndex: 2,
        counters: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 3, totalTokens: 45, estimatedCostUsd: 0.3, lastPromptTokens: 10 },
      });
      const entry = await service.request('GET', `/v1/conversations/${enc(body.sessionKey)}`);
      expect(entry.body).toMatchObject({ sessionId: body.sessionId, inputTokens: 30, totalTokens: 45, turnCount: 2 });
      const transcript = await service.request('GET', `/v1/sessions/${body.sessionId}/transcript`);
      expect(transcript.body.messages.map((message: { content: string }) => message.content)).toEqual(['hello', 're: hello', 'again', 're: again']);
      const session = await service.request('GET', `/v1/sessions/${body.sessionId}`);
      expect(session.body).toMatchObject({ status: 'active', turnCount: 2, messageCount: 4 });
    });

    it('rewinds user turns by soft delete and rewrites the transcript', async () => {
      const { body } = await resolve(dm());
      const empty = await service.request('POST', `/v1/sessions/${body.sessionId}/rewind`, { body: { turns: 1 } });
      expect(empty.body).toMatchObject({ rewoundCount: 0, turnsUndone: 0, targetText: null });
      for (const text of ['one', 'two', 'three']) await userTurn(body.sessionId, text);
      const rewound = await service.request('POST', `/v1/sessions/${body.sessionId}/rewind`, { body: { turns: 2 } });
      expect(rewound.body).toMatchObject({ rewoundCount: 4, turnsUndone: 2, targetText: 'two' });
      const live = await service.request('GET', `/v1/sessions/${body.sessionId}/transcript`);
      expect(live.body.messages.map((message: { content: string }) => message.content)).toEqual(['one', 're: one']);
      const all = await service.request('GET', `/v1/sessions/${body.sessionId}/transcript?includeDeleted=true`);
      expect(all.body.messages.filter((message: { deleted: boolean }) => message.deleted)).toHaveLength(4);
      const clamped = await service.request('POST', `/v1/sessions/${body.sessionId}/rewind`, { body: { turns: 0 } });
      expect(clamped.body).toMatchObject({ rewoundCount: 2, turnsUndone: 1, targetText: 'one' });
      await userTurn(body.sessionId, 'four');
      const rewrite = await service.request('PUT', `/v1/sessions/${body.sessionId}/transcript`, {
        body: { messages: [{ role: 'system', content: 'summary of four' }] },
      });
      expect(rewrite.body).toMatchObject({ messageCount: 1, replacedCount: 2 });
      const after = await service.request('GET', `/v1/sessions/${body.sessionId}/transcript`);
      expect(after.body.messages).toHaveLength(1);
      expect(after.body.messages[0]).toMatchObject({ role: 'system', content: 'summary of four' });
    });

    it('resets to a new session, ends the old one, and refuses turns on it with 409 SESSION_ENDED', async () => {
      const source = { ...dm(), chatName: 'Alice chat' };
      const { body } = await resolve(source);
      await userTurn(body.sessionId, 'hi');
      const reset = await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/reset`);
      expect(reset.status).toBe(200);
      expect(reset.body.sessionId).not.toBe(body.sessionId);
      expect(reset.body.entry).toMatchObject({ isFreshReset: true, displayName: 'Alice chat', suspended: false, inputTokens: 0 });
      const refused = await userTurn(body.sessionId, 'late');
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('SESSION_ENDED');
      const next = await resolve(source);
      expect(next.body).toMatchObject({ sessionId: reset.body.sessionId, created: false });
      // Hermes' gateway reads the flag on the first message after /reset (session:start, skills again), once.
      expect(next.body.entry.isFreshReset).toBe(true);
      expect((await resolve(source)).body.entry.isFreshReset).toBe(false);
    });

    it("a reset may rename the conversation (Hermes' reset_session display_name); without one the name stays", async () => {
      const source = { ...dm(), chatName: 'Alice chat' };
      const { body } = await resolve(source);
      const key = enc(body.sessionKey);
      const renamed = await service.request('POST', `/v1/conversations/${key}/reset`, { body: { displayName: 'Project Phoenix' } });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body.entry).toMatchObject({ displayName: 'Project Phoenix', isFreshReset: true });
      const kept = await service.request('POST', `/v1/conversations/${key}/reset`, { body: {} });
      expect(kept.body.entry.displayName).toBe('Project Phoenix');
      const indexed = await service.request('GET', `/v1/sessions/by-key/${key}?minPosition=${kept.body.position}`);
      expect(indexed.body.displayName).toBe('Project Phoenix');
      const tooLong = await service.request('POST', `/v1/conversations/${key}/reset`, { body: { displayName: 'x'.repeat(1025) } });
      expect([tooLong.status, tooLong.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    });

    it("takes a source without chatType (or with it null) as Hermes' default, a DM, and answers a bad one with 400", async () => {
      const chatId = `no-type-${chat++}`;
      const missing = await resolve({ platform: 'telegram', chatId });
      expect(missing.status, missing.text).toBe(201);
      expect(missing.body).toMatchObject({ sessionKey: `agent:main:telegram:dm:${chatId}`, entry: { chatType: 'dm', origin: { chatType: 'dm' } } });
      expect((await resolve({ platform: 'telegram', chatId, chatType: null })).body).toMatchObject({ sessionId: missing.body.sessionId, created: false });
      const bad = await resolve({ platform: 'telegram', chatId, chatType: 'private' });
      expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    });

    it('switches back to an earlier session, reopening it, and 404s for a session of another conversation', async () => {
      const { body } = await resolve(dm());
      const reset = await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/reset`);
      const back = await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/switch`, { body: { sessionId: body.sessionId } });
      expect(back.status).toBe(200);
      expect(back.body).toMatchObject({ sessionId: body.sessionId, previousSessionId: reset.body.sessionId, changed: true });
      expect((await userTurn(body.sessionId, 'back again')).status).toBe(201);
      expect((await userTurn(reset.body.sessionId, 'left behind')).body.error.code).toBe('SESSION_ENDED');
      const again = await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/switch`, { body: { sessionId: body.sessionId } });
      expect(again.body.changed).toBe(false);
      const other = await resolve(dm());
      const foreign = await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/switch`, { body: { sessionId: other.body.sessionId } });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('SESSION_NOT_FOUND');
    });

    it('auto-resets a suspended conversation on the next resolve, and refuses resume marks while suspended', async () => {
      const source = dm();
      const { body } = await resolve(source);
      await userTurn(body.sessionId, 'busy');
      expect((await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/suspend`)).body.entry.suspended).toBe(true);
      const refused = await service.request('POST', `/v1/conversations/${enc(body.sessionKey)}/resume-pending`, { body: { reason: 'restart_timeout' } });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONVERSATION_SUSPENDED');
      const next = await resolve(source);
      expect(next.body).toMatchObject({ created: true, state: 'cold' });
      expect(next.body.sessionId).not.toBe(body.sessionId);
      expect(next.body.entry).toMatchObject({ wasAutoReset: true, autoResetReason: 'suspended', resetHadActivity: true, suspended: false });
    });

    it('keeps the session id while resume-pending and clears the mark on a completed turn only', async () => {
      const source = dm();
      const { body } = await resolve(source);
      const key = enc(body.sessionKey);
      const marked = await service.request('POST', `/v1/conversations/${key}/resume-pending`, { body: { reason: 'restart_interrupted' } });
      expect(marked.body.entry).toMatchObject({ resumePending: true, resumeReason: 'restart_interrupted' });
      const resumed = await resolve(source);
      expect(resumed.body).toMatchObject({ sessionId: body.sessionId, state: 'resumed', created: false });
      await turn(body.sessionId, { messages: [{ role: 'user', content: 'x' }], status: 'failed' });
      expect((await service.request('GET', `/v1/conversations/${key}`)).body.resumePending).toBe(true);
      await userTurn(body.sessionId, 'done');
      expect((await service.request('GET', `/v1/conversations/${key}`)).body.resumePending).toBe(false);
      await service.request('POST', `/v1/conversations/${key}/resume-pending`, { body: { reason: 'shutdown_timeout' } });
      const cleared = await service.request('DELETE', `/v1/conversations/${key}/resume-pending`);
      expect(cleared.body.entry.resumePending).toBe(false);
      const badReason = await service.request('POST', `/v1/conversations/${key}/resume-pending`, { body: { reason: 'whenever' } });
      expect(badReason.status).toBe(400);
    });

    it('forces a new session with forceNew and keys group members apart unless the request says otherwise', async () => {
      const group = { platform: 'discord', chatType: 'group', chatId: `g-${backend}`, userId: 'u7' };
      const isolated = await resolve(group);
      expect(isolated.body.sessionKey).toBe(`agent:main:discord:group:g-${backend}:u7`);
      const shared = await resolve(group, { options: { groupSessionsPerUser: false } });
      expect(shared.body.sessionKey).toBe(`agent:main:discord:group:g-${backend}`);
      const forced = await resolve(group, { forceNew: true });
      expect(forced.body).toMatchObject({ created: true });
      expect(forced.body.sessionId).not.toBe(isolated.body.sessionId);
    });

    it('builds the context prompt with PII redaction that does not vary with messageId', async () => {
      const source = { platform: 'telegram', chatType: 'group', chatId: `-100${chat++}`, userId: '424242', userName: 'Bob', messageId: 'm1' };
      const { body } = await resolve(source, { options: { groupSessionsPerUser: true } });
      const plain = await service.request('GET', `/v1/conversations/${enc(body.sessionKey)}/context`);
      expect(plain.body.prompt).toContain('424242');
      const redacted = await service.request('GET', `/v1/conversations/${enc(body.sessionKey)}/context?redactPii=true`);
      expect(redacted.body.prompt).not.toContain('424242');
      expect(redacted.body.prompt).toMatch(/user_[0-9a-f]{12}/);
      expect(redacted.body.prompt).toContain('Bob');
      await resolve({ ...source, messageId: 'm2' }, { options: { groupSessionsPerUser: true } });
      expect((await service.request('GET', `/v1/conversations/${enc(body.sessionKey)}/context?redactPii=true`)).body.prompt).toBe(redacted.body.prompt);
    });

    it('answers bad input with 4xx codes and writes nothing', async () => {
      const head = await service.lastPosition();
      const cases = [
        await resolve({ platform: 'Tele gram', chatType: 'dm' }),
        await resolve({ platform: 'telegram', chatType: 'room' }),
        await resolve({ platform: 'telegram', chatType: 'dm', surprise: 1 }),
        await service.request('POST', '/v1/sessions/resolve', { body: { source: dm(), extra: true } }),
        await service.request('POST', '/v1/sessions/resolve', { body: [] }),
        await turn('20260101_000000_deadbeef', { messages: [{ role: 'user', content: 'x' }] }),
        await turn('bad id!', { messages: [{ role: 'user', content: 'x' }] }),
        await service.request('GET', `/v1/conversations/${enc('agent:main:nope:dm')}`),
      ];
      expect(cases.map((response) => response.status)).toEqual([400, 400, 400, 400, 400, 404, 400, 404]);
      expect(cases.map((response) => response.body.error.code)).toEqual([
        'VALIDATION_FAILED',
        'VALIDATION_FAILED',
        'VALIDATION_FAILED',
        'VALIDATION_FAILED',
        'VALIDATION_FAILED',
        'SESSION_NOT_FOUND',
        'INVALID_SESSION_ID',
        'CONVERSATION_NOT_FOUND',
      ]);
      expect(await service.lastPosition()).toBe(head);
    });
  });
}
