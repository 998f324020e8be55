// Checkpoints, rollback (back and forward), turns in flight, memory and slots, time travel and audit over real HTTP.
import { expect, it } from 'vitest';
import type { TurnUsage } from '../../src/client/index.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { telegramSource } from '../support/sources.js';

forEachBackend('session timeline', (ledger) => {
  let chat = 0;
  const newSession = () => ledger.client.resolveSession({ source: telegramSource(`timeline-${ledger.backend}-${++chat}`, { userId: 'u1' }) });
  const userTurn = (sessionId: string, text: string, usage: TurnUsage = { inputTokens: 10, outputTokens: 5, costUsd: 0.01 }) =>
    ledger.client.recordTurn(sessionId, {
      messages: [
        { role: 'user', content: [{ type: 'text', text }] },
        { role: 'assistant', content: `re: ${text}` },
      ],
      usage,
    });

  /** What "the session's state in the API" is: each read route's body, minus the revision and position that move on. */
  const views = async (sessionId: string) => {
    const { client } = ledger;
    const strip = ({ revision: _revision, position: _position, ...rest }: { revision: number; position: number }) => JSON.stringify(rest);
    return {
      state: JSON.stringify((await client.sessionState(sessionId)).state),
      transcript: strip(await client.getTranscript(sessionId, { includeDeleted: true })),
      memory: strip(await client.sessionMemory(sessionId)),
      slots: strip(await client.sessionSlots(sessionId)),
      turnCount: (await client.getSession(sessionId)).turnCount,
    };
  };

  it('rolls back to a checkpoint and forward again, restoring transcript, counters, memory and slots byte for byte', async () => {
    const { client } = ledger;
    const { sessionId } = await newSession();
    await userTurn(sessionId, 'one');
    await client.setMemory(sessionId, 'topic', { value: { subject: 'cats', z: 1, a: [1, 2] }, metadata: { source: 'user' } });
    await client.createSlot(sessionId, 'research');
    const first = await client.createCheckpoint(sessionId, { label: 'after one' });
    expect(first).toMatchObject({ checkpointId: expect.stringMatching(/^cp-\d+$/), label: 'after one', turnIndex: 1 });
    expect(first.position).toBeGreaterThan(0);
    const atFirst = await views(sessionId);

    await userTurn(sessionId, 'two', { inputTokens: 100, costUsd: 0.5 });
    await client.setMemory(sessionId, 'mood', { value: 'curious' });
    await client.removeMemory(sessionId, 'topic');
    await client.switchSlot(sessionId, 'research');
    await userTurn(sessionId, 'three');
    await client.rewind(sessionId, { turns: 1 });
    const second = await client.createCheckpoint(sessionId, { label: 'in research' });
    const atSecond = await views(sessionId);
    expect(atSecond.state).not.toBe(atFirst.state);

    const back = await client.rollback(sessionId, first.checkpointId);
    expect(back).toMatchObject({ checkpointId: first.checkpointId, targetRevision: first.revision, turnIndex: 1 });
    expect(await views(sessionId)).toEqual(atFirst);

    const forward = await client.rollback(sessionId, second.checkpointId);
    expect(forward.turnIndex).toBe(3);
    expect(await views(sessionId)).toEqual(atSecond);

    // The state at the checkpoint's revision, replayed, is the same state again.
    expect(JSON.stringify((await client.sessionState(sessionId, { revision: first.revision })).state)).toBe(atFirst.state);
    // Nothing was rewritten: the log holds both rollbacks after everything they undid.
    const { events } = await client.sessionEvents(sessionId, { limit: 1000 });
    expect(events.filter((event) => event.type === 'RolledBack')).toHaveLength(2);
    expect(events.filter((event) => event.type === 'TurnRecorded')).toHaveLength(3);
  });

  it('lists checkpoints newest first, automatic ones too, marking which are on the current timeline', async () => {
    const { client } = ledger;
    const { sessionId } = await newSession();
    const turnOne = await userTurn(sessionId, 'one');
    expect(turnOne.checkpointId).toMatch(/^cp-\d+$/);
    const manual = await client.createCheckpoint(sessionId, { label: 'mine' });
    const turnTwo = await userTurn(sessionId, 'two');
    await client.rollback(sessionId, turnOne.checkpointId!);
    const turnTwoAgain = await userTurn(sessionId, 'two, differently');
    expect(turnTwoAgain.turnIndex).toBe(2);
    const failed = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'x' }], status: 'failed' });
    expect(failed.checkpointId).toBeNull();

    const listed = await client.listCheckpoints(sessionId);
    expect(listed.checkpoints.map((checkpoint) => [checkpoint.checkpointId, checkpoint.onCurrentTimeline, checkpoint.auto])).toEqual([
      [turnTwoAgain.checkpointId, true, true],
      [turnTwo.checkpointId, false, true],
      [manual.checkpointId, false, false],
      [turnOne.checkpointId, true, true],
    ]);
    expect(listed.checkpoints[2]).toMatchObject({ label: 'mine', turnIndex: 1, revision: manual.revision, createdAt: expect.any(String) });
    const page = await client.listCheckpoints(sessionId, { limit: 3 });
    expect(page.checkpoints).toHaveLength(3);
    const rest = await client.listCheckpoints(sessionId, { limit: 3, before: page.nextBefore! });
    expect(rest.checkpoints.map((checkpoint) => checkpoint.checkpointId)).toEqual([turnOne.checkpointId]);
    expect(rest.nextBefore).toBeNull();

    expect(await refusalOf(client.rollback(sessionId, 'cp-999'))).toEqual({ status: 404, code: 'CHECKPOINT_NOT_FOUND' });
  });

  it('refuses a rollback while a turn is in flight with 409 TURN_IN_FLIGHT, and accepts it once the turn is recorded', async () => {
    const { client } = ledger;
    const { sessionId } = await newSession();
    const turn = await userTurn(sessionId, 'one');
    const started = await client.startTurn(sessionId);
    expect(started.turnIndex).toBe(2);
    expect((await client.getSession(sessionId)).turnInFlight).toMatchObject({ turnIndex: 2 });
    expect(await refusalOf(client.startTurn(sessionId))).toEqual({ status: 409, code: 'TURN_IN_FLIGHT' });
    expect(await refusalOf(client.rollback(sessionId, turn.checkpointId!))).toEqual({ status: 409, code: 'TURN_IN_FLIGHT' });
    const completed = await userTurn(sessionId, 'two');
    expect(completed.turnIndex).toBe(2);
    expect((await client.getSession(sessionId)).turnInFlight).toBeNull();
    await client.rollback(sessionId, turn.checkpointId!);
  });

  it('keeps memory entries with metadata and created-at, and sends turns, rewinds and rewrites to the current slot', async () => {
    const { client } = ledger;
    const { sessionId } = await newSession();
    const set = await client.setMemory(sessionId, 'user.name', { value: 'Alice', metadata: { confidence: 0.9 } });
    expect(set).toMatchObject({ name: 'user.name', value: 'Alice', metadata: { confidence: 0.9 } });
    const again = await client.setMemory(sessionId, 'user.name', { value: 'Alicia' });
    expect(again).toMatchObject({ value: 'Alicia', metadata: {}, createdAt: set.createdAt });
    await client.setMemory(sessionId, 'a', { value: null });
    expect((await client.sessionMemory(sessionId)).entries.map((entry) => entry.name)).toEqual(['a', 'user.name']);
    expect(await refusalOf(client.removeMemory(sessionId, 'nope'))).toEqual({ status: 404, code: 'MEMORY_ENTRY_NOT_FOUND' });
    expect((await refusalOf(client.setMemory(sessionId, 'bad name', { value: 1 }))).code).toBe('INVALID_MEMORY_NAME');

    await userTurn(sessionId, 'in main');
    await client.createSlot(sessionId, 'tools');
    expect((await refusalOf(client.createSlot(sessionId, 'tools'))).code).toBe('SLOT_EXISTS');
    expect((await refusalOf(client.switchSlot(sessionId, 'nope'))).code).toBe('SLOT_NOT_FOUND');
    const switched = await client.switchSlot(sessionId, 'tools');
    expect(switched).toMatchObject({ currentSlot: 'tools', previous: 'main' });
    await userTurn(sessionId, 'in tools');
    expect(await client.sessionSlots(sessionId)).toMatchObject({
      currentSlot: 'tools',
      slots: [
        { name: 'main', messageCount: 2, current: false },
        { name: 'tools', messageCount: 2, current: true },
      ],
    });
    const tools = await client.getTranscript(sessionId, { slot: 'tools' });
    expect(tools.messages.map((message) => message.content)).toEqual([[{ type: 'text', text: 'in tools' }], 're: in tools']);
    // A rewind undoes the current slot's last user turn, not the other slot's.
    expect(await client.rewind(sessionId, { turns: 5 })).toMatchObject({ rewoundCount: 2, turnsUndone: 1 });
    expect((await client.getTranscript(sessionId, { slot: 'main' })).messages).toHaveLength(2);
    const rewrite = await client.rewriteTranscript(sessionId, { messages: [{ role: 'system', content: 'tools summary' }] });
    expect(rewrite).toMatchObject({ replacedCount: 0, messageCount: 3 });
    expect(await client.getSession(sessionId)).toMatchObject({ currentSlot: 'tools', lastSummaryTurn: 2 });
  });

  it('serves the raw events and the state as of a revision or a time; the conversation stream too', async () => {
    const { client } = ledger;
    const { sessionId, sessionKey } = await newSession();
    await userTurn(sessionId, 'one');
    await userTurn(sessionId, 'two');
    // Raw: a request id of the caller's own, which the typed client never sends.
    const page = await ledger.service.request('GET', `/v1/sessions/${sessionId}/events?fromRevision=0&limit=2`, { headers: { 'x-request-id': 'audit-1' } });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ streamName: `session-${sessionId}`, nextRevision: 2 });
    expect(page.body.events[0]).toMatchObject({
      revision: 0,
      type: 'SessionCreated',
      metadata: { actor: 'api', correlationId: expect.any(String) },
      createdAt: expect.any(String),
    });
    expect(page.body.events[1]).toMatchObject({ revision: 1, type: 'TurnRecorded', data: { turnIndex: 1 } });
    expect(page.body.events[1].position).toBeGreaterThan(page.body.events[0].position);
    const last = await client.sessionEvents(sessionId, { fromRevision: 2 });
    expect(last.events.map((event) => event.revision)).toEqual([2]);
    expect(last.nextRevision).toBeNull();

    const atOne = await client.sessionState(sessionId, { revision: 1 });
    expect(atOne).toMatchObject({ sessionId, revision: 1, status: 'active', state: { turnIndex: 1 }, lastEventAt: page.body.events[1].createdAt });
    const byTime = await client.sessionState(sessionId, { at: page.body.events[1].createdAt });
    expect(byTime.revision).toBeGreaterThanOrEqual(1);
    expect(byTime.state.turnIndex).toBe(byTime.revision);
    expect(await refusalOf(client.sessionState(sessionId, { at: '2000-01-01T00:00:00Z' }))).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
    expect(await refusalOf(client.sessionState(sessionId, { revision: 99 }))).toEqual({ status: 404, code: 'REVISION_NOT_FOUND' });
    expect((await refusalOf(client.sessionState(sessionId, { revision: 1, at: '2000-01-01T00:00:00Z' }))).status).toBe(400);
    expect(await client.sessionState(sessionId)).toMatchObject({ revision: 2, state: { turnIndex: 2 } });

    const conversation = await client.conversationEvents(sessionKey);
    expect(conversation.events.map((event) => event.type).slice(0, 2)).toEqual(['ConversationOpened', 'SessionBound']);
    expect((await refusalOf(client.conversationEvents('agent:main:nope:dm'))).code).toBe('CONVERSATION_NOT_FOUND');
    expect((await refusalOf(client.sessionEvents('20260101_000000_deadbeef'))).status).toBe(404);
  });
});
