// A log holding version 1 of TranscriptRewound, RolledBack or GatewayPlatformsRegistered (written before their shapes or meanings changed) reads as
// version 2 everywhere: state, read model, history, replay, the context prompt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/events/eventStore.js';
import { type SessionStreamEvent, sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { canonicalJson } from '../../src/events/streamStateStore.js';
import { evolveSession, initialSessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { timelineOf } from '../../src/modules/sessions/domain/sessionState.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

for (const backend of e2eBackends()) {
  describe(`event schema evolution: ${backend}`, () => {
    let service: TestApp;

    beforeAll(async () => {
      // Snapshots every few events, so loads start from a snapshot and fold the v1 event on top of it too.
      service = await startTestApp(backend, { env: { SNAPSHOT_EVERY: '2', JOB_TICK_INTERVAL_MS: '0' } });
    });
    afterAll(async () => {
      await service?.close();
    });

    const turn = (sessionId: string, text: string) =>
      service.request('POST', `/v1/sessions/${sessionId}/turns`, {
        body: {
          messages: [
            { role: 'user', content: text },
            { role: 'assistant', content: `re: ${text}` },
          ],
        },
      });

    /** The events of a stream as the database holds them, bypassing every reader. */
    const storedEvents = async (streamName: string) => {
      const result = await service.infrastructure.readModelPool.query<{ type: string; data: Record<string, unknown>; metadata: Record<string, unknown> }>(
        `SELECT type, data, metadata FROM "${service.config.eventStoreSchema}".events WHERE stream_name = $1 ORDER BY revision`,
        [streamName],
      );
      return result.rows;
    };

    it('replays a v1 TranscriptRewound appended raw as the current shape, and writes new ones as v2', async () => {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'cli', chatType: 'dm', chatId: `schema-${backend}` } },
      });
      const { sessionId } = resolved.body as { sessionId: string };
      const stream = sessionStreamName(sessionId);
      expect((await turn(sessionId, 'first question')).status).toBe(201);
      const second = await turn(sessionId, 'second question');
      expect(second.status).toBe(201);

      // Version 1, as a service from before the change wrote it: the target's text copied in, no slot (pre-slots).
      const appended = await service.infrastructure.eventStore.append(
        stream,
        [
          {
            type: 'TranscriptRewound',
            data: { fromMessageIndex: 2, rewoundCount: 2, turnsUndone: 1, targetText: 'second question', at: new Date().toISOString() },
            metadata: { schemaVersion: 1, actor: 'old-service' },
          },
        ],
        second.body.revision,
      );
      const v1Revision = appended.nextExpectedRevision;

      // State (the cached fold catches up through the upcaster): the second turn is soft-deleted in the main slot.
      const transcript = await service.request('GET', `/v1/sessions/${sessionId}/transcript?includeDeleted=true`);
      expect(
        transcript.body.messages.map((message: { content: string; deleted: boolean; slot: string }) => [message.content, message.deleted, message.slot]),
      ).toEqual([
        ['first question', false, 'main'],
        ['re: first question', false, 'main'],
        ['second question', true, 'main'],
        ['re: second question', true, 'main'],
      ]);
      expect((await service.request('GET', `/v1/sessions/${sessionId}`)).body.revision).toBe(v1Revision);

      // Replay from the log (time travel folds from a snapshot or from revision 0, never from the cache).
      const replayed = await service.request('GET', `/v1/sessions/${sessionId}/state?revision=${v1Revision}`);
      expect(replayed.status).toBe(200);
      expect(replayed.body.state.transcript.map((message: { index: number; deleted: boolean }) => [message.index, message.deleted])).toEqual([
        [0, false],
        [1, false],
        [2, true],
        [3, true],
      ]);

      // History: the event in its current shape, saying which version the log holds.
      const history = await service.request('GET', `/v1/sessions/${sessionId}/events?fromRevision=${v1Revision}`);
      expect(history.body.events).toHaveLength(1);
      expect(history.body.events[0]).toMatchObject({
        type: 'TranscriptRewound',
        data: { fromMessageIndex: 2, rewoundCount: 2, turnsUndone: 1, slot: 'main' },
        metadata: { schemaVersion: 2, storedSchemaVersion: 1, actor: 'old-service' },
      });
      expect(history.body.events[0].data).not.toHaveProperty('targetText');

      // Read model: the sessions index applied it (two live messages), and a rebuild over the v1 event gives the same rows.
      const record = async () => (await service.request('GET', `/v1/sessions/${sessionId}/record?minPosition=${appended.position}`)).body;
      const live = await record();
      expect(live).toMatchObject({ sessionId, messageCount: 2 });
      expect((await service.request('POST', '/v1/admin/projections/sessions-index/rebuild')).status).toBe(202);
      expect(await record()).toEqual(live);

      // The log itself is never rewritten: the v1 bytes are still there.
      const stored = await storedEvents(stream);
      expect(stored[v1Revision]).toMatchObject({ data: { targetText: 'second question' }, metadata: { schemaVersion: 1 } });

      // A rewind now is written as v2 and its answer still names the text it went back to (from the transcript).
      const rewind = await service.request('POST', `/v1/sessions/${sessionId}/rewind`, { body: { turns: 1 } });
      expect(rewind.body).toMatchObject({ rewoundCount: 2, turnsUndone: 1, targetText: 'first question' });
      const written = (await storedEvents(stream)).at(-1)!;
      expect(written).toMatchObject({ type: 'TranscriptRewound', metadata: { schemaVersion: 2 }, data: { slot: 'main', fromMessageIndex: 0 } });
      expect(written.data).not.toHaveProperty('targetText');
    });

    it('replays a v1 RolledBack (the whole timeline) appended raw, and writes new ones as v2 carrying only what changed', async () => {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'cli', chatType: 'dm', chatId: `rollback-schema-${backend}` } },
      });
      const { sessionId } = resolved.body as { sessionId: string };
      const stream = sessionStreamName(sessionId);
      await turn(sessionId, 'first question');
      const second = await turn(sessionId, 'second question');
      const rewound = await service.request('POST', `/v1/sessions/${sessionId}/rewind`, { body: { turns: 1 } });
      expect(rewound.status).toBe(200);

      // Version 1, as a service from before the change wrote it: the checkpoint's whole timeline, transcript and all.
      const history = await service.infrastructure.eventStore.readStream(stream, { toRevision: second.body.revision });
      const atCheckpoint = history.reduce(
        (state, event) => evolveSession(state, canonicalJson({ type: event.type, data: event.data }) as SessionStreamEvent),
        initialSessionState(),
      );
      const before = await service.request('GET', `/v1/sessions/${sessionId}`);
      const appended = await service.infrastructure.eventStore.append(
        stream,
        [
          {
            type: 'RolledBack',
            data: {
              checkpointId: second.body.checkpointId,
              targetRevision: second.body.revision,
              fromRevision: before.body.revision,
              fromTurnIndex: 2,
              restored: timelineOf(atCheckpoint) as unknown as JsonObject,
              at: new Date().toISOString(),
            },
            metadata: { schemaVersion: 1, actor: 'old-service' },
          },
        ],
        before.body.revision,
      );
      const v1Revision = appended.nextExpectedRevision;

      // State, cached and replayed: the rewind undone, all four messages live again.
      const transcript = async () =>
        (await service.request('GET', `/v1/sessions/${sessionId}/transcript?includeDeleted=true`)).body.messages.map(
          (message: { index: number; deleted: boolean }) => [message.index, message.deleted],
        );
      expect(await transcript()).toEqual([
        [0, false],
        [1, false],
        [2, false],
        [3, false],
      ]);
      const replayed = await service.request('GET', `/v1/sessions/${sessionId}/state?revision=${v1Revision}`);
      expect(replayed.body.state.transcript.map((message: { index: number; deleted: boolean }) => [message.index, message.deleted])).toEqual([
        [0, false],
        [1, false],
        [2, false],
        [3, false],
      ]);

      // History: the current shape, a change that keeps none of the transcript and carries it all.
      const events = await service.request('GET', `/v1/sessions/${sessionId}/events?fromRevision=${v1Revision}`);
      expect(events.body.events[0]).toMatchObject({
        type: 'RolledBack',
        data: { restored: { transcript: { kept: 0, liveCount: 4 }, headCheckpointId: second.body.checkpointId } },
        metadata: { schemaVersion: 2, storedSchemaVersion: 1, actor: 'old-service' },
      });
      expect(events.body.events[0].data.restored.transcript.following).toHaveLength(4);

      // Read model: the live count the upcaster counted, the same after a rebuild over the v1 event.
      const record = async () => (await service.request('GET', `/v1/sessions/${sessionId}/record?minPosition=${appended.position}`)).body;
      const live = await record();
      expect(live).toMatchObject({ sessionId, messageCount: 4 });
      expect((await service.request('POST', '/v1/admin/projections/sessions-index/rebuild')).status).toBe(202);
      expect(await record()).toEqual(live);

      // A rollback now is written as v2: it keeps the messages before the rewound ones and carries only those.
      await service.request('POST', `/v1/sessions/${sessionId}/rewind`, { body: { turns: 1 } });
      const rollback = await service.request('POST', `/v1/sessions/${sessionId}/rollback`, { body: { checkpointId: second.body.checkpointId } });
      expect(rollback.status).toBe(200);
      const stored = await storedEvents(stream);
      expect(stored[v1Revision]).toMatchObject({ metadata: { schemaVersion: 1 }, data: { restored: { transcript: expect.any(Array) } } });
      const written = stored.at(-1)!;
      expect(written).toMatchObject({ type: 'RolledBack', metadata: { schemaVersion: 2 }, data: { restored: { transcript: { kept: 2, liveCount: 4 } } } });
      expect((written.data as { restored: { transcript: { following: unknown[] } } }).restored.transcript.following).toHaveLength(2);
      expect(await transcript()).toEqual([
        [0, false],
        [1, false],
        [2, false],
        [3, false],
      ]);
      const afterRollback = await service.request('GET', `/v1/sessions/${sessionId}/record?minPosition=${rollback.body.position}`);
      expect(afterRollback.body.messageCount).toBe(4);
    });

    it("reads a v1 platform registration in Hermes' meaning of piiSafe: what the gateway meant stays what the prompt does", async () => {
      const telegram = { platform: 'telegram', chatType: 'dm', chatId: `555${backend.length}`, userId: `555${backend.length}` };
      const discord = { platform: 'discord', chatType: 'channel', chatId: `777${backend.length}`, userId: `666${backend.length}` };
      const keys = [];
      for (const source of [telegram, discord])
        keys.push((await service.request('POST', '/v1/sessions/resolve', { body: { source } })).body.sessionKey as string);
      // Version 1, as a service from before the change wrote it: telegram's ids raw (piiSafe true), discord's hashed.
      const v1Platforms = [
        { platform: 'discord', displayName: null, homeChannel: null, piiSafe: false },
        { platform: 'telegram', displayName: null, homeChannel: null, piiSafe: true },
      ];
      const appended = await service.infrastructure.eventStore.append(
        'gateway-old-gw',
        [{ type: 'GatewayPlatformsRegistered', data: { platforms: v1Platforms, at: new Date().toISOString() }, metadata: { schemaVersion: 1 } }],
        'no_stream',
      );
      const prompt = async (key: string) =>
        (await service.request('GET', `/v1/conversations/${encodeURIComponent(key)}/context?redactPii=true&minPosition=${appended.position}`)).body
          .prompt as string;
      expect(await prompt(keys[0]!)).toContain(`"${telegram.chatId}"`);
      expect(await prompt(keys[1]!)).not.toContain(discord.chatId);

      // The same list in Hermes' words is the list already registered: nothing is appended, the v1 event stays as stored.
      const again = await service.request('PUT', '/v1/gateways/old-gw/platforms', {
        body: {
          platforms: [
            { platform: 'telegram', piiSafe: false },
            { platform: 'discord', piiSafe: true },
          ],
        },
      });
      expect(again.body).toMatchObject({
        changed: false,
        platforms: [
          { platform: 'discord', piiSafe: true },
          { platform: 'telegram', piiSafe: false },
        ],
      });
      expect(await storedEvents('gateway-old-gw')).toEqual([
        expect.objectContaining({ metadata: { schemaVersion: 1 }, data: expect.objectContaining({ platforms: v1Platforms }) }),
      ]);
    });
  });
}
