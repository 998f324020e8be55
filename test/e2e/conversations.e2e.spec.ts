// Gateway lifecycle over real HTTP: resolve precedence, the 50-way race, reset/switch/suspend/resume, turns, transcripts.
import { expect, it } from 'vitest';
import type { ResolveRequest, SessionSource, TurnUsage } from '../../src/client/index.js';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn, telegramSource } from '../support/sources.js';

const enc = encodeURIComponent;

forEachBackend('conversations', (ledger) => {
  let chat = 0;
  const dm = () => telegramSource(`${ledger.backend}-${++chat}`, { userId: 'u1', userName: 'Alice' });
  const resolve = (source: SessionSource, extra: Omit<ResolveRequest, 'source'> = {}) => ledger.client.resolveSession({ source, ...extra });
  const userTurn = (sessionId: string, text: string, usage: TurnUsage = {}) =>
    ledger.client.recordTurn(sessionId, {
      messages: [
        { role: 'user', content: text },
        { role: 'assistant', content: `re: ${text}` },
      ],
      usage,
    });
  // What a gateway sends that the typed client never does (a source without its chatType, an unknown field).
  const rawResolve = (source: object) => ledger.service.request('POST', '/v1/sessions/resolve', { body: { source } });

  it('creates a session on first resolve (cold, 201) and returns it warm afterwards', async () => {
    const source = dm();
    const first = await resolve(source);
    expect(first).toMatchObject({ sessionKey: `agent:main:telegram:dm:${source.chatId}`, state: 'cold', created: true });
    expect(first.sessionId).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
    expect(first.entry).toMatchObject({ platform: 'telegram', chatType: 'dm', gatewayId: 'default', suspended: false, inputTokens: 0 });
    expect(first.position).toBeGreaterThan(0);
    const second = await resolve(source);
    expect(second).toMatchObject({ sessionId: first.sessionId, state: 'warm', created: false });
  });

  it('writes a new conversation (or a reset) and its new session in one transaction: no binding is ever seen without its session', async () => {
    const created = await resolve(dm());
    expect(created.created).toBe(true);
    const store = ledger.service.infrastructure.eventStore;
    const [bound] = (await store.readStream(conversationStreamName(created.sessionKey))).filter((event) => event.type === 'SessionBound');
    const [opened] = await store.readStream(sessionStreamName(created.sessionId));
    expect(opened).toMatchObject({ type: 'SessionCreated', revision: 0 });
    // A position is (transaction id << 16) + the event's index in its transaction.
    expect(Math.floor(opened!.position / 65_536)).toBe(Math.floor(bound!.position / 65_536));
    expect(opened!.position).toBeGreaterThan(bound!.position);
    expect(created.position).toBe(opened!.position);
    // A reset opens its new session the same way.
    const reset = await ledger.client.resetConversation(created.sessionKey, {});
    const rebound = (await store.readStream(conversationStreamName(created.sessionKey))).filter((event) => event.type === 'SessionBound').at(-1)!;
    const [reopened] = await store.readStream(sessionStreamName(reset.sessionId));
    expect(reopened).toMatchObject({ type: 'SessionCreated', revision: 0 });
    expect(Math.floor(reopened!.position / 65_536)).toBe(Math.floor(rebound.position / 65_536));
    expect((await store.readStream(sessionStreamName(created.sessionId))).map((event) => event.type)).toEqual(['SessionCreated', 'SessionEnded']);
  });

  it('gives 50 concurrent resolves of a new key exactly one session', async () => {
    const source = dm();
    // Every call succeeds (a refusal would throw): 201 for the one that created it, 200 for the others.
    const responses = await Promise.all(Array.from({ length: 50 }, () => resolve(source)));
    expect(new Set(responses.map((response) => response.sessionId)).size).toBe(1);
    expect(responses.filter((response) => response.created)).toHaveLength(1);
    const events = await ledger.service.infrastructure.eventStore.readStream(`conversation-${responses[0]!.sessionKey}`);
    expect(events.filter((event) => event.type === 'SessionBound')).toHaveLength(1);
    const sessionEvents = await ledger.service.infrastructure.eventStore.readStream(`session-${responses[0]!.sessionId}`);
    expect(sessionEvents.filter((event) => event.type === 'SessionCreated')).toHaveLength(1);
  });

  it('records turns, accumulates counters and serves the transcript', async () => {
    const { client } = ledger;
    const resolved = await resolve(dm());
    const first = await userTurn(resolved.sessionId, 'hello', { inputTokens: 10, outputTokens: 5, costUsd: 0.1, lastPromptTokens: 10 });
    expect(first.turnIndex).toBe(1);
    const second = await userTurn(resolved.sessionId, 'again', { inputTokens: 20, outputTokens: 7, cacheReadTokens: 3, costUsd: 0.2 });
    expect(second).toMatchObject({
      turnIndex: 2,
      counters: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 3, totalTokens: 45, estimatedCostUsd: 0.3, lastPromptTokens: 10 },
    });
    const entry = await client.getConversation(resolved.sessionKey);
    expect(entry).toMatchObject({ sessionId: resolved.sessionId, inputTokens: 30, totalTokens: 45, turnCount: 2 });
    const transcript = await client.getTranscript(resolved.sessionId);
    expect(transcript.messages.map((message) => message.content)).toEqual(['hello', 're: hello', 'again', 're: again']);
    const session = await client.getSession(resolved.sessionId);
    expect(session).toMatchObject({ status: 'active', turnCount: 2, messageCount: 4 });
  });

  it('rewinds user turns by soft delete and rewrites the transcript', async () => {
    const { client } = ledger;
    const { sessionId } = await resolve(dm());
    const empty = await client.rewind(sessionId, { turns: 1 });
    expect(empty).toMatchObject({ rewoundCount: 0, turnsUndone: 0, targetText: null });
    for (const text of ['one', 'two', 'three']) await userTurn(sessionId, text);
    const rewound = await client.rewind(sessionId, { turns: 2 });
    expect(rewound).toMatchObject({ rewoundCount: 4, turnsUndone: 2, targetText: 'two' });
    const live = await client.getTranscript(sessionId);
    expect(live.messages.map((message) => message.content)).toEqual(['one', 're: one']);
    const all = await client.getTranscript(sessionId, { includeDeleted: true });
    expect(all.messages.filter((message) => message.deleted)).toHaveLength(4);
    const clamped = await client.rewind(sessionId, { turns: 0 });
    expect(clamped).toMatchObject({ rewoundCount: 2, turnsUndone: 1, targetText: 'one' });
    await userTurn(sessionId, 'four');
    const rewrite = await client.rewriteTranscript(sessionId, { messages: [{ role: 'system', content: 'summary of four' }] });
    expect(rewrite).toMatchObject({ messageCount: 1, replacedCount: 2 });
    const after = await client.getTranscript(sessionId);
    expect(after.messages).toHaveLength(1);
    expect(after.messages[0]).toMatchObject({ role: 'system', content: 'summary of four' });
  });

  it('resets to a new session, ends the old one, and refuses turns on it with 409 SESSION_ENDED', async () => {
    const source = { ...dm(), chatName: 'Alice chat' };
    const resolved = await resolve(source);
    await userTurn(resolved.sessionId, 'hi');
    const reset = await ledger.client.resetConversation(resolved.sessionKey);
    expect(reset.sessionId).not.toBe(resolved.sessionId);
    expect(reset.entry).toMatchObject({ isFreshReset: true, displayName: 'Alice chat', suspended: false, inputTokens: 0 });
    expect(await refusalOf(userTurn(resolved.sessionId, 'late'))).toEqual({ status: 409, code: 'SESSION_ENDED' });
    const next = await resolve(source);
    expect(next).toMatchObject({ sessionId: reset.sessionId, created: false });
    // Hermes' gateway reads the flag on the first message after /reset (session:start, skills again), once.
    expect(next.entry.isFreshReset).toBe(true);
    expect((await resolve(source)).entry.isFreshReset).toBe(false);
  });

  it("a reset may rename the conversation (Hermes' reset_session display_name); without one the name stays", async () => {
    const { client } = ledger;
    const source = { ...dm(), chatName: 'Alice chat' };
    const { sessionKey } = await resolve(source);
    const renamed = await client.resetConversation(sessionKey, { displayName: 'Project Phoenix' });
    expect(renamed.entry).toMatchObject({ displayName: 'Project Phoenix', isFreshReset: true });
    const kept = await client.resetConversation(sessionKey, {});
    expect(kept.entry.displayName).toBe('Project Phoenix');
    // The client asks for the reset's position (X-Min-Position), as the query's minPosition did.
    const indexed = await client.sessionByKey(sessionKey, { minPosition: kept.position });
    expect(indexed.displayName).toBe('Project Phoenix');
    expect(await refusalOf(client.resetConversation(sessionKey, { displayName: 'x'.repeat(1025) }))).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it("takes a source without chatType (or with it null) as Hermes' default, a DM, and answers a bad one with 400", async () => {
    // The typed source always carries a chatType: what Hermes may leave out goes raw.
    const chatId = `no-type-${chat++}`;
    const missing = await rawResolve({ platform: 'telegram', chatId });
    expect(missing.status, missing.text).toBe(201);
    expect(missing.body).toMatchObject({ sessionKey: `agent:main:telegram:dm:${chatId}`, entry: { chatType: 'dm', origin: { chatType: 'dm' } } });
    expect((await rawResolve({ platform: 'telegram', chatId, chatType: null })).body).toMatchObject({ sessionId: missing.body.sessionId, created: false });
    const bad = await rawResolve({ platform: 'telegram', chatId, chatType: 'private' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('switches back to an earlier session, reopening it, and 404s for a session of another conversation', async () => {
    const { client } = ledger;
    const { sessionId, sessionKey } = await resolve(dm());
    const reset = await client.resetConversation(sessionKey);
    const back = await client.switchSession(sessionKey, sessionId);
    expect(back).toMatchObject({ sessionId, previousSessionId: reset.sessionId, changed: true });
    await userTurn(sessionId, 'back again');
    expect((await refusalOf(userTurn(reset.sessionId, 'left behind'))).code).toBe('SESSION_ENDED');
    const again = await client.switchSession(sessionKey, sessionId);
    expect(again.changed).toBe(false);
    const other = await resolve(dm());
    expect(await refusalOf(client.switchSession(sessionKey, other.sessionId))).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
  });

  it('auto-resets a suspended conversation on the next resolve, and refuses resume marks while suspended', async () => {
    const { client } = ledger;
    const source = dm();
    const resolved = await resolve(source);
    await userTurn(resolved.sessionId, 'busy');
    expect((await client.suspendConversation(resolved.sessionKey)).entry.suspended).toBe(true);
    expect(await refusalOf(client.markResumePending(resolved.sessionKey, 'restart_timeout'))).toEqual({ status: 409, code: 'CONVERSATION_SUSPENDED' });
    const next = await resolve(source);
    expect(next).toMatchObject({ created: true, state: 'cold' });
    expect(next.sessionId).not.toBe(resolved.sessionId);
    expect(next.entry).toMatchObject({ wasAutoReset: true, autoResetReason: 'suspended', resetHadActivity: true, suspended: false });
  });

  it('keeps the session id while resume-pending and clears the mark on a completed turn only', async () => {
    const { client } = ledger;
    const source = dm();
    const { sessionId, sessionKey } = await resolve(source);
    const marked = await client.markResumePending(sessionKey, 'restart_interrupted');
    expect(marked.entry).toMatchObject({ resumePending: true, resumeReason: 'restart_interrupted' });
    const resumed = await resolve(source);
    expect(resumed).toMatchObject({ sessionId, state: 'resumed', created: false });
    await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'x' }], status: 'failed' });
    expect((await client.getConversation(sessionKey)).resumePending).toBe(true);
    await userTurn(sessionId, 'done');
    expect((await client.getConversation(sessionKey)).resumePending).toBe(false);
    await client.markResumePending(sessionKey, 'shutdown_timeout');
    const cleared = await client.clearResumePending(sessionKey);
    expect(cleared.entry.resumePending).toBe(false);
    // A reason the typed client cannot spell goes raw.
    const badReason = await ledger.service.request('POST', `/v1/conversations/${enc(sessionKey)}/resume-pending`, { body: { reason: 'whenever' } });
    expect(badReason.status).toBe(400);
  });

  it('forces a new session with forceNew and keys group members apart unless the request says otherwise', async () => {
    const group = sourceOn('discord', `g-${ledger.backend}`, { chatType: 'group', userId: 'u7' });
    const isolated = await resolve(group);
    expect(isolated.sessionKey).toBe(`agent:main:discord:group:g-${ledger.backend}:u7`);
    const shared = await resolve(group, { options: { groupSessionsPerUser: false } });
    expect(shared.sessionKey).toBe(`agent:main:discord:group:g-${ledger.backend}`);
    const forced = await resolve(group, { forceNew: true });
    expect(forced).toMatchObject({ created: true });
    expect(forced.sessionId).not.toBe(isolated.sessionId);
  });

  it('builds the context prompt with PII redaction that does not vary with messageId', async () => {
    const { client } = ledger;
    const source = telegramSource(`-100${chat++}`, { chatType: 'group', userId: '424242', userName: 'Bob', messageId: 'm1' });
    const { sessionKey } = await resolve(source, { options: { groupSessionsPerUser: true } });
    const plain = await client.conversationContext(sessionKey);
    expect(plain.prompt).toContain('424242');
    const redacted = await client.conversationContext(sessionKey, { redactPii: true });
    expect(redacted.prompt).not.toContain('424242');
    expect(redacted.prompt).toMatch(/user_[0-9a-f]{12}/);
    expect(redacted.prompt).toContain('Bob');
    await resolve({ ...source, messageId: 'm2' }, { options: { groupSessionsPerUser: true } });
    expect((await client.conversationContext(sessionKey, { redactPii: true })).prompt).toBe(redacted.prompt);
  });

  it('answers bad input with 4xx codes and writes nothing', async () => {
    const { client, service } = ledger;
    const head = await service.lastPosition();
    const raw = async (response: Promise<{ status: number; body: { error: { code: string } } }>) => {
      const { status, body } = await response;
      return { status, code: body.error.code };
    };
    const turn = { messages: [{ role: 'user' as const, content: 'x' }] };
    const cases = [
      await refusalOf(client.resolveSession({ source: { platform: 'Tele gram', chatType: 'dm' } })),
      await raw(rawResolve({ platform: 'telegram', chatType: 'room' })),
      await raw(rawResolve({ platform: 'telegram', chatType: 'dm', surprise: 1 })),
      await raw(service.request('POST', '/v1/sessions/resolve', { body: { source: dm(), extra: true } })),
      await raw(service.request('POST', '/v1/sessions/resolve', { body: [] })),
      await refusalOf(client.recordTurn('20260101_000000_deadbeef', turn)),
      await refusalOf(client.recordTurn('bad id!', turn)),
      await refusalOf(client.getConversation('agent:main:nope:dm')),
    ];
    expect(cases.map((refusal) => refusal.status)).toEqual([400, 400, 400, 400, 400, 404, 400, 404]);
    expect(cases.map((refusal) => refusal.code)).toEqual([
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
