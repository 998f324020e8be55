// Checkpoints, rollback (back and forward), turns in flight, memory and slots, time travel and audit over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';

const enc = encodeURIComponent;

for (const backend of e2eBackends()) {
  describe(`session timeline: ${backend}`, () => {
    let service: TestApp;
    let chat = 0;
    const dm = () => ({ platform: 'telegram', chatType: 'dm', chatId: `timeline-${backend}-${++chat}`, userId: 'u1' });
    const post = (path: string, body: object = {}) => service.request('POST', path, { body });
    const get = (path: string) => service.request('GET', path);
    const newSession = async () => (await post('/v1/sessions/resolve', { source: dm() })).body as { sessionId: string; sessionKey: string };
    const userTurn = (sessionId: string, text: string, usage: object = { inputTokens: 10, outputTokens: 5, costUsd: 0.01 }) =>
      post(`/v1/sessions/${sessionId}/turns`, {
        messages: [
          { role: 'user', content: [{ type: 'text', text }] },
          { role: 'assistant', content: `re: ${text}` },
        ],
        usage,
      });

    /** What "the session's state in the API" is: each read route's body, minus the revision and position that move on. */
    const views = async (sessionId: string) => {
      const strip = ({ body }: TestResponse) => {
        const { revision: _revision, position: _position, ...rest } = body;
        return JSON.stringify(rest);
      };
      return {
        state: JSON.stringify((await get(`/v1/sessions/${sessionId}/state`)).body.state),
        transcript: strip(await get(`/v1/sessions/${sessionId}/transcript?includeDeleted=true`)),
        memory: strip(await get(`/v1/sessions/${sessionId}/memory`)),
        slots: strip(await get(`/v1/sessions/${sessionId}/slots`)),
        turnCount: (await get(`/v1/sessions/${sessionId}`)).body.turnCount as number,
      };
    };

    beforeAll(async () => {
      service = await startTestApp(backend);
    });
    afterAll(async () => {
      await service?.close();
    });

    it('rolls back to a checkpoint and forward again, restoring transcript, counters, memory and slots byte for byte', async () => {
      const { sessionId } = await newSession();
      await userTurn(sessionId, 'one');
      await service.request('PUT', `/v1/sessions/${sessionId}/memory/topic`, {
        body: { value: { subject: 'cats', z: 1, a: [1, 2] }, metadata: { source: 'user' } },
      });
      await post(`/v1/sessions/${sessionId}/slots`, { name: 'research' });
      const first = await post(`/v1/sessions/${sessionId}/checkpoints`, { label: 'after one' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ checkpointId: expect.stringMatching(/^cp-\d+$/), label: 'after one', turnIndex: 1 });
      expect(first.body.position).toBeGreaterThan(0);
      const atFirst = await views(sessionId);

      await userTurn(sessionId, 'two', { inputTokens: 100, costUsd: 0.5 });
      await service.request('PUT', `/v1/sessions/${sessionId}/memory/mood`, { body: { value: 'curious' } });
      await service.request('DELETE', `/v1/sessions/${sessionId}/memory/topic`);
      await post(`/v1/sessions/${sessionId}/slots/research/switch`);
      await userTurn(sessionId, 'three');
      await post(`/v1/sessions/${sessionId}/rewind`, { turns: 1 });
      const second = await post(`/v1/sessions/${sessionId}/checkpoints`, { label: 'in research' });
      const atSecond = await views(sessionId);
      expect(atSecond.state).not.toBe(atFirst.state);

      const back = await post(`/v1/sessions/${sessionId}/rollback`, { checkpointId: first.body.checkpointId });
      expect(back.status).toBe(200);
      expect(back.body).toMatchObject({ checkpointId: first.body.checkpointId, targetRevision: first.body.revision, turnIndex: 1 });
      expect(await views(sessionId)).toEqual(atFirst);

      const forward = await post(`/v1/sessions/${sessionId}/rollback`, { checkpointId: second.body.checkpointId });
      expect(forward.body.turnIndex).toBe(3);
      expect(await views(sessionId)).toEqual(atSecond);

      // The state at the checkpoint's revision, replayed, is the same state again.
      expect(JSON.stringify((await get(`/v1/sessions/${sessionId}/state?revision=${first.body.revision}`)).body.state)).toBe(atFirst.state);
      // Nothing was rewritten: the log holds both rollbacks after everything they undid.
      const events = (await get(`/v1/sessions/${sessionId}/events?limit=1000`)).body.events as Array<{ type: string }>;
      expect(events.filter((event) => event.type === 'RolledBack')).toHaveLength(2);
      expect(events.filter((event) => event.type === 'TurnRecorded')).toHaveLength(3);
    });

    it('lists checkpoints newest first, automatic ones too, marking which are on the current timeline', async () => {
      const { sessionId } = await newSession();
      const turnOne = await userTurn(sessionId, 'one');
      expect(turnOne.body.checkpointId).toMatch(/^cp-\d+$/);
      const manual = await post(`/v1/sessions/${sessionId}/checkpoints`, { label: 'mine' });
      const turnTwo = await userTurn(sessionId, 'two');
      await post(`/v1/sessions/${sessionId}/rollback`, { checkpointId: turnOne.body.checkpointId });
      const turnTwoAgain = await userTurn(sessionId, 'two, differently');
      expect(turnTwoAgain.body.turnIndex).toBe(2);
      const failed = await post(`/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: 'x' }], status: 'failed' });
      expect(failed.body.checkpointId).toBeNull();

      const listed = await get(`/v1/sessions/${sessionId}/checkpoints`);
      expect(listed.status).toBe(200);
      expect(
        listed.body.checkpoints.map((checkpoint: { checkpointId: string; onCurrentTimeline: boolean; auto: boolean }) => [
          checkpoint.checkpointId,
          checkpoint.onCurrentTimeline,
          checkpoint.auto,
        ]),
      ).toEqual([
        [turnTwoAgain.body.checkpointId, true, true],
        [turnTwo.body.checkpointId, false, true],
        [manual.body.checkpointId, false, false],
        [turnOne.body.checkpointId, true, true],
      ]);
      expect(listed.body.checkpoints[2]).toMatchObject({ label: 'mine', turnIndex: 1, revision: manual.body.revision, createdAt: expect.any(String) });
      const page = await get(`/v1/sessions/${sessionId}/checkpoints?limit=3`);
      expect(page.body.checkpoints).toHaveLength(3);
      const rest = await get(`/v1/sessions/${sessionId}/checkpoints?limit=3&before=${page.body.nextBefore}`);
      expect(rest.body.checkpoints.map((checkpoint: { checkpointId: string }) => checkpoint.checkpointId)).toEqual([turnOne.body.checkpointId]);
      expect(rest.body.nextBefore).toBeNull();

      const unknown = await post(`/v1/sessions/${sessionId}/rollback`, { checkpointId: 'cp-999' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('CHECKPOINT_NOT_FOUND');
    });

    it('refuses a rollback while a turn is in flight with 409 TURN_IN_FLIGHT, and accepts it once the turn is recorded', async () => {
      const { sessionId } = await newSession();
      const turn = await userTurn(sessionId, 'one');
      const started = await post(`/v1/sessions/${sessionId}/turns/start`);
      expect(started.status).toBe(201);
      expect(started.body.turnIndex).toBe(2);
      expect((await get(`/v1/sessions/${sessionId}`)).body.turnInFlight).toMatchObject({ turnIndex: 2 });
      const twice = await post(`/v1/sessions/${sessionId}/turns/start`);
      expect([twice.status, twice.body.error.code]).toEqual([409, 'TURN_IN_FLIGHT']);
      const refused = await post(`/v1/sessions/${sessionId}/rollback`, { checkpointId: turn.body.checkpointId });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'TURN_IN_FLIGHT']);
      const completed = await userTurn(sessionId, 'two');
      expect(completed.body.turnIndex).toBe(2);
      expect((await get(`/v1/sessions/${sessionId}`)).body.turnInFlight).toBeNull();
      expect((await post(`/v1/sessions/${sessionId}/rollback`, { checkpointId: turn.body.checkpointId })).status).toBe(200);
    });

    it('keeps memory entries with metadata and created-at, and sends turns, rewinds and rewrites to the current slot', async () => {
      const { sessionId } = await newSession();
      const set = await service.request('PUT', `/v1/sessions/${sessionId}/memory/user.name`, { body: { value: 'Alice', metadata: { confidence: 0.9 } } });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ name: 'user.name', value: 'Alice', metadata: { confidence: 0.9 } });
      const again = await service.request('PUT', `/v1/sessions/${sessionId}/memory/user.name`, { body: { value: 'Alicia' } });
      expect(again.body).toMatchObject({ value: 'Alicia', metadata: {}, createdAt: set.body.createdAt });
      await service.request('PUT', `/v1/sessions/${sessionId}/memory/a`, { body: { value: null } });
      expect((await get(`/v1/sessions/${sessionId}/memory`)).body.entries.map((entry: { name: string }) => entry.name)).toEqual(['a', 'user.name']);
      const missing = await service.request('DELETE', `/v1/sessions/${sessionId}/memory/nope`);
      expect([missing.status, missing.body.error.code]).toEqual([404, 'MEMORY_ENTRY_NOT_FOUND']);
      expect((await service.request('PUT', `/v1/sessions/${sessionId}/memory/bad%20name`, { body: { value: 1 } })).body.error.code).toBe('INVALID_MEMORY_NAME');

      await userTurn(sessionId, 'in main');
      expect((await post(`/v1/sessions/${sessionId}/slots`, { name: 'tools' })).status).toBe(201);
      expect((await post(`/v1/sessions/${sessionId}/slots`, { name: 'tools' })).body.error.code).toBe('SLOT_EXISTS');
      expect((await post(`/v1/sessions/${sessionId}/slots/nope/switch`)).body.error.code).toBe('SLOT_NOT_FOUND');
      const switched = await post(`/v1/sessions/${sessionId}/slots/tools/switch`);
      expect(switched.body).toMatchObject({ currentSlot: 'tools', previous: 'main' });
      await userTurn(sessionId, 'in tools');
      const slots = await get(`/v1/sessions/${sessionId}/slots`);
      expect(slots.body).toMatchObject({
        currentSlot: 'tools',
        slots: [
          { name: 'main', messageCount: 2, current: false },
          { name: 'tools', messageCount: 2, current: true },
        ],
      });
      const tools = await get(`/v1/sessions/${sessionId}/transcript?slot=tools`);
      expect(tools.body.messages.map((message: { content: unknown }) => message.content)).toEqual([[{ type: 'text', text: 'in tools' }], 're: in tools']);
      // A rewind undoes the current slot's last user turn, not the other slot's.
      expect((await post(`/v1/sessions/${sessionId}/rewind`, { turns: 5 })).body).toMatchObject({ rewoundCount: 2, turnsUndone: 1 });
      expect((await get(`/v1/sessions/${sessionId}/transcript?slot=main`)).body.messages).toHaveLength(2);
      const rewrite = await service.request('PUT', `/v1/sessions/${sessionId}/transcript`, {
        body: { messages: [{ role: 'system', content: 'tools summary' }] },
      });
      expect(rewrite.body).toMatchObject({ replacedCount: 0, messageCount: 3 });
      expect((await get(`/v1/sessions/${sessionId}`)).body).toMatchObject({ currentSlot: 'tools', lastSummaryTurn: 2 });
    });

    it('serves the raw events and the state as of a revision or a time; the conversation stream too', async () => {
      const { sessionId, sessionKey } = await newSession();
      await userTurn(sessionId, 'one');
      await userTurn(sessionId, 'two');
      const page = await service.request('GET', `/v1/sessions/${sessionId}/events?fromRevision=0&limit=2`, { headers: { 'x-request-id': 'audit-1' } });
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
      const last = await get(`/v1/sessions/${sessionId}/events?fromRevision=2`);
      expect(last.body.events.map((event: { revision: number }) => event.revision)).toEqual([2]);
      expect(last.body.nextRevision).toBeNull();

      const atOne = await get(`/v1/sessions/${sessionId}/state?revision=1`);
      expect(atOne.body).toMatchObject({ sessionId, revision: 1, status: 'active', state: { turnIndex: 1 }, lastEventAt: page.body.events[1].createdAt });
      const byTime = await get(`/v1/sessions/${sessionId}/state?at=${enc(page.body.events[1].createdAt)}`);
      expect(byTime.body.revision).toBeGreaterThanOrEqual(1);
      expect(byTime.body.state.turnIndex).toBe(byTime.body.revision);
      const before = await get(`/v1/sessions/${sessionId}/state?at=2000-01-01T00:00:00Z`);
      expect([before.status, before.body.error.code]).toEqual([404, 'SESSION_NOT_FOUND']);
      const future = await get(`/v1/sessions/${sessionId}/state?revision=99`);
      expect([future.status, future.body.error.code]).toEqual([404, 'REVISION_NOT_FOUND']);
      expect((await get(`/v1/sessions/${sessionId}/state?revision=1&at=2000-01-01T00:00:00Z`)).status).toBe(400);
      expect((await get(`/v1/sessions/${sessionId}/state`)).body).toMatchObject({ revision: 2, state: { turnIndex: 2 } });

      const conversation = await get(`/v1/conversations/${enc(sessionKey)}/events`);
      expect(conversation.status).toBe(200);
      expect(conversation.body.events.map((event: { type: string }) => event.type).slice(0, 2)).toEqual(['ConversationOpened', 'SessionBound']);
      expect((await get(`/v1/conversations/${enc('agent:main:nope:dm')}/events`)).body.error.code).toBe('CONVERSATION_NOT_FOUND');
      expect((await get('/v1/sessions/20260101_000000_deadbeef/events')).status).toBe(404);
    });
  });
}
