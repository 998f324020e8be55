// Commands decide on this instance's cached state without a catch-up read: what another writer appended meanwhile must still count.
import { beforeAll, expect, it } from 'vitest';
import type { RecordTurnRequest } from '../../src/client/index.js';
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
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { telegramSource } from '../support/sources.js';

const OTHER = { actor: 'another-instance' };

forEachBackend('decisions on a stale cache', (ledger) => {
  /** Another instance on the same log: its own cache, so the service's cache never hears of its appends. */
  let other: StreamStateStore;
  let chat = 0;
  const now = () => new Date().toISOString();
  const source = () => telegramSource(`stale-${ledger.backend}-${chat}`);
  const turn = (sessionId: string, text: string, status: RecordTurnRequest['status'] = 'completed') =>
    ledger.client.recordTurn(sessionId, { messages: [{ role: 'user', content: text }], status });
  /** A conversation whose conversation and session states are both in the service's cache. */
  async function warmConversation(): Promise<{ sessionKey: string; sessionId: string }> {
    ++chat;
    const resolved = await ledger.client.resolveSession({ source: source() });
    expect(resolved.created).toBe(true);
    await turn(resolved.sessionId, 'warm-up');
    return { sessionKey: resolved.sessionKey, sessionId: resolved.sessionId };
  }

  beforeAll(() => {
    other = new StreamStateStore(ledger.service.infrastructure.eventStore, new BoundedStateCache({ maxEntries: 100 }), systemClock);
  });

  it('records a turn after turns another instance recorded, at the revision after theirs', async () => {
    const { sessionId } = await warmConversation();
    const theirs = await other.handle(sessionStreamName(sessionId), sessionDecider, { type: 'StartTurn', now: now() }, OTHER);
    const ours = await turn(sessionId, 'after theirs');
    expect(ours.revision).toBe(theirs.revision + 1);
    expect(ours.turnIndex).toBe(2);
    const events = await ledger.service.infrastructure.eventStore.readStream(sessionStreamName(sessionId));
    expect(events.map((event) => event.type).slice(-2)).toEqual(['TurnStarted', 'TurnRecorded']);
  });

  /** The other instance binds the conversation to a new session (a reset) and writes nothing to the sessions: its id. */
  const rebindElsewhere = async (sessionKey: string) => {
    const replacement = newSessionId(new Date(), randomSessionIdSuffix());
    await other.handle(
      conversationStreamName(sessionKey),
      conversationDecider,
      { type: 'ResetConversation', newSessionId: replacement, currentSessionHadActivity: true, now: now() },
      OTHER,
    );
    return replacement;
  };

  it('refuses a turn on a session another instance ended, and accepts one again once it reopened it', async () => {
    const { sessionId } = await warmConversation();
    await other.handle(sessionStreamName(sessionId), sessionDecider, { type: 'EndSession', reason: 'forced', now: now() }, OTHER);
    expect(await refusalOf(turn(sessionId, 'on an ended session'))).toEqual({ status: 409, code: 'SESSION_ENDED' });
    // The service now caches the ended state; the reopen is the other instance's again.
    await other.handle(sessionStreamName(sessionId), sessionDecider, { type: 'ReopenSession', now: now() }, OTHER);
    await turn(sessionId, 'after the reopen');
  });

  it('closes a session its conversation no longer points to (a binding whose SessionEnded was lost) before recording on it', async () => {
    const { sessionKey, sessionId } = await warmConversation();
    // A rebinding with no follow-up: what a crash between the conversation's append and the session's leaves.
    await rebindElsewhere(sessionKey);
    expect(await refusalOf(turn(sessionId, 'on a superseded session'))).toEqual({ status: 409, code: 'SESSION_ENDED' });
    const events = await ledger.service.infrastructure.eventStore.readStream(sessionStreamName(sessionId));
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
    await turn(sessionId, 'failed', 'failed');
    expect((await ledger.client.getConversation(sessionKey)).resumePending).toBe(true);
    await other.handle(conversationStreamName(sessionKey), conversationDecider, { type: 'ClearResumePending', reason: 'manual', now: now() }, OTHER);
    await other.handle(conversationStreamName(sessionKey), conversationDecider, { type: 'MarkResumePending', reason: 'shutdown_timeout', now: now() }, OTHER);
    await turn(sessionId, 'completed');
    const conversation = await ledger.service.infrastructure.eventStore.readStream(conversationStreamName(sessionKey));
    expect(conversation.at(-1)).toMatchObject({ type: 'ResumeCleared', data: { reason: 'turn_completed' } });
    expect((await ledger.client.getConversation(sessionKey)).resumePending).toBe(false);
  });

  it('answers a resolve with the session another instance bound', async () => {
    const { sessionKey, sessionId } = await warmConversation();
    const replacement = await rebindElsewhere(sessionKey);
    const resolved = await ledger.client.resolveSession({ source: source() });
    expect(resolved.sessionId).toBe(replacement);
    expect(resolved.sessionId).not.toBe(sessionId);
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
    const resolved = await ledger.client.resolveSession({ source: source() });
    expect(resolved.created).toBe(false);
    expect(resolved).toMatchObject({ sessionId, state: 'warm' });
    expect(resolved.entry).toMatchObject({ turnCount: 2, inputTokens: 7 });
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
    const reset = await ledger.client.resetConversation(sessionKey, {});
    expect(reset.sessionId).not.toBe(slow);
    expect(await ledger.service.infrastructure.eventStore.readStream(sessionStreamName(slow)).catch(() => [])).toEqual([]);
    // The other instance carries on and creates its session, which the conversation no longer points to.
    await followSessionBinding(ledger.service.app.get(CommandContext), sessionKey, binding.events, OTHER);
    const events = await ledger.service.infrastructure.eventStore.readStream(sessionStreamName(slow));
    expect(events.map((event) => [event.type, event.data.reason])).toEqual([
      ['SessionCreated', 'reset'],
      ['SessionEnded', 'superseded'],
    ]);
    const current = await ledger.client.getConversation(sessionKey);
    expect(current.sessionId).toBe(reset.sessionId);
  });
});
