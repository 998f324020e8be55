// A log holding version 1 of TranscriptRewound, RolledBack or GatewayPlatformsRegistered (written before their shapes or meanings changed) reads as
// version 2 everywhere: state, read model, history, replay, the context prompt.
import { expect, it } from 'vitest';
import type { JsonObject } from '../../src/events/eventStore.js';
import { type SessionStreamEvent, sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { canonicalJson } from '../../src/events/streamStateStore.js';
import { evolveSession, initialSessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { timelineOf } from '../../src/modules/sessions/domain/sessionState.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { sourceOn, telegramSource } from '../support/sources.js';

forEachBackend(
  'event schema evolution',
  (ledger) => {
    const turn = (sessionId: string, text: string) =>
      ledger.client.recordTurn(sessionId, {
        messages: [
          { role: 'user', content: text },
          { role: 'assistant', content: `re: ${text}` },
        ],
      });
    const transcriptOf = async (sessionId: string) => (await ledger.client.getTranscript(sessionId, { includeDeleted: true })).messages;
    const replayedTranscript = async (sessionId: string, revision: number) =>
      (await ledger.client.sessionState(sessionId, { revision })).state.transcript.map((message) => [message.index, message.deleted]);

    /** The events of a stream as the database holds them, bypassing every reader. */
    const storedEvents = async (streamName: string) => {
      const { service } = ledger;
      const result = await service.infrastructure.readModelPool.query<{ type: string; data: Record<string, unknown>; metadata: Record<string, unknown> }>(
        `SELECT type, data, metadata FROM "${service.config.eventStoreSchema}".events WHERE stream_name = $1 ORDER BY revision`,
        [streamName],
      );
      return result.rows;
    };

    it('replays a v1 TranscriptRewound appended raw as the current shape, and writes new ones as v2', async () => {
      const { client, service } = ledger;
      const { sessionId } = await client.resolveSession({ source: sourceOn('cli', `schema-${ledger.backend}`) });
      const stream = sessionStreamName(sessionId);
      await turn(sessionId, 'first question');
      const second = await turn(sessionId, 'second question');

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
        second.revision,
      );
      const v1Revision = appended.nextExpectedRevision;

      // State (the cached fold catches up through the upcaster): the second turn is soft-deleted in the main slot.
      expect((await transcriptOf(sessionId)).map((message) => [message.content, message.deleted, message.slot])).toEqual([
        ['first question', false, 'main'],
        ['re: first question', false, 'main'],
        ['second question', true, 'main'],
        ['re: second question', true, 'main'],
      ]);
      expect((await client.getSession(sessionId)).revision).toBe(v1Revision);

      // Replay from the log (time travel folds from a snapshot or from revision 0, never from the cache).
      expect(await replayedTranscript(sessionId, v1Revision)).toEqual([
        [0, false],
        [1, false],
        [2, true],
        [3, true],
      ]);

      // History: the event in its current shape, saying which version the log holds.
      const history = await client.sessionEvents(sessionId, { fromRevision: v1Revision });
      expect(history.events).toHaveLength(1);
      expect(history.events[0]).toMatchObject({
        type: 'TranscriptRewound',
        data: { fromMessageIndex: 2, rewoundCount: 2, turnsUndone: 1, slot: 'main' },
        metadata: { schemaVersion: 2, storedSchemaVersion: 1, actor: 'old-service' },
      });
      expect(history.events[0]!.data).not.toHaveProperty('targetText');

      // Read model: the sessions index applied it (two live messages), and a rebuild over the v1 event gives the same rows.
      const record = () => client.sessionRecord(sessionId, { minPosition: appended.position });
      const live = await record();
      expect(live).toMatchObject({ sessionId, messageCount: 2 });
      await client.rebuildProjection('sessions-index');
      expect(await record()).toEqual(live);

      // The log itself is never rewritten: the v1 bytes are still there.
      const stored = await storedEvents(stream);
      expect(stored[v1Revision]).toMatchObject({ data: { targetText: 'second question' }, metadata: { schemaVersion: 1 } });

      // A rewind now is written as v2 and its answer still names the text it went back to (from the transcript).
      const rewind = await client.rewind(sessionId, { turns: 1 });
      expect(rewind).toMatchObject({ rewoundCount: 2, turnsUndone: 1, targetText: 'first question' });
      const written = (await storedEvents(stream)).at(-1)!;
      expect(written).toMatchObject({ type: 'TranscriptRewound', metadata: { schemaVersion: 2 }, data: { slot: 'main', fromMessageIndex: 0 } });
      expect(written.data).not.toHaveProperty('targetText');
    });

    it('replays a v1 RolledBack (the whole timeline) appended raw, and writes new ones as v2 carrying only what changed', async () => {
      const { client, service } = ledger;
      const { sessionId } = await client.resolveSession({ source: sourceOn('cli', `rollback-schema-${ledger.backend}`) });
      const stream = sessionStreamName(sessionId);
      await turn(sessionId, 'first question');
      const second = await turn(sessionId, 'second question');
      await client.rewind(sessionId, { turns: 1 });

      // Version 1, as a service from before the change wrote it: the checkpoint's whole timeline, transcript and all.
      const history = await service.infrastructure.eventStore.readStream(stream, { toRevision: second.revision });
      const atCheckpoint = history.reduce(
        (state, event) => evolveSession(state, canonicalJson({ type: event.type, data: event.data }) as SessionStreamEvent),
        initialSessionState(),
      );
      const before = await client.getSession(sessionId);
      const appended = await service.infrastructure.eventStore.append(
        stream,
        [
          {
            type: 'RolledBack',
            data: {
              checkpointId: second.checkpointId,
              targetRevision: second.revision,
              fromRevision: before.revision,
              fromTurnIndex: 2,
              restored: timelineOf(atCheckpoint) as unknown as JsonObject,
              at: new Date().toISOString(),
            },
            metadata: { schemaVersion: 1, actor: 'old-service' },
          },
        ],
        before.revision,
      );
      const v1Revision = appended.nextExpectedRevision;

      // State, cached and replayed: the rewind undone, all four messages live again.
      const transcript = async () => (await transcriptOf(sessionId)).map((message) => [message.index, message.deleted]);
      expect(await transcript()).toEqual([
        [0, false],
        [1, false],
        [2, false],
        [3, false],
      ]);
      expect(await replayedTranscript(sessionId, v1Revision)).toEqual([
        [0, false],
        [1, false],
        [2, false],
        [3, false],
      ]);

      // History: the current shape, a change that keeps none of the transcript and carries it all.
      const [upcast] = (await client.sessionEvents(sessionId, { fromRevision: v1Revision })).events;
      expect(upcast).toMatchObject({
        type: 'RolledBack',
        data: { restored: { transcript: { kept: 0, liveCount: 4 }, headCheckpointId: second.checkpointId } },
        metadata: { schemaVersion: 2, storedSchemaVersion: 1, actor: 'old-service' },
      });
      expect((upcast!.data as { restored: { transcript: { following: unknown[] } } }).restored.transcript.following).toHaveLength(4);

      // Read model: the live count the upcaster counted, the same after a rebuild over the v1 event.
      const record = () => client.sessionRecord(sessionId, { minPosition: appended.position });
      const live = await record();
      expect(live).toMatchObject({ sessionId, messageCount: 4 });
      await client.rebuildProjection('sessions-index');
      expect(await record()).toEqual(live);

      // A rollback now is written as v2: it keeps the messages before the rewound ones and carries only those.
      await client.rewind(sessionId, { turns: 1 });
      const rollback = await client.rollback(sessionId, second.checkpointId!);
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
      const afterRollback = await client.sessionRecord(sessionId, { minPosition: rollback.position });
      expect(afterRollback.messageCount).toBe(4);
    });

    it("reads a v1 platform registration in Hermes' meaning of piiSafe: what the gateway meant stays what the prompt does", async () => {
      const { client, service } = ledger;
      const length = ledger.backend.length;
      const telegram = telegramSource(`555${length}`, { userId: `555${length}` });
      const discord = sourceOn('discord', `777${length}`, { chatType: 'channel', userId: `666${length}` });
      const keys = [];
      for (const source of [telegram, discord]) keys.push((await client.resolveSession({ source })).sessionKey);
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
      const prompt = async (key: string) => (await client.conversationContext(key, { redactPii: true }, { minPosition: appended.position })).prompt;
      expect(await prompt(keys[0]!)).toContain(`"${telegram.chatId}"`);
      expect(await prompt(keys[1]!)).not.toContain(discord.chatId!);

      // The same list in Hermes' words is the list already registered: nothing is appended, the v1 event stays as stored.
      const again = await client.gatewayPlatforms('old-gw', {
        platforms: [
          { platform: 'telegram', piiSafe: false },
          { platform: 'discord', piiSafe: true },
        ],
      });
      expect(again).toMatchObject({
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
  },
  // Snapshots every few events, so loads start from a snapshot and fold the v1 event on top of it too.
  { env: { SNAPSHOT_EVERY: '2', JOB_TICK_INTERVAL_MS: '0' } },
);
