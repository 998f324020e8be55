// The sessions-index projection on PGlite and PostgreSQL: entries and records follow the events, and a rebuild gives the same rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { type ConversationEvent, conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import type { NewEvent } from '../../src/events/eventStore.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { type SessionStreamEvent, sessionStreamName, type StoredMessage, type TurnUsage } from '../../src/events/session/sessionEvents.js';
import { createLogger } from '../../src/logging/logger.js';
import { evolveConversation, initialConversationState } from '../../src/modules/conversations/domain/conversationDecider.js';
import type { SessionSource } from '../../src/events/conversation/sessionSource.js';
import type { SessionCounters, SessionTimeline } from '../../src/modules/sessions/domain/sessionDecider.js';
import { AdvisoryLockLease, SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import { ConversationEntryEntity } from '../../src/projections/sessionsIndex/conversationEntryRow.js';
import { SessionRecordEntity } from '../../src/projections/sessionsIndex/sessionRecordRow.js';
import { sessionsIndexProjection } from '../../src/projections/sessionsIndex/sessionsIndexProjection.js';
import { testBackends, type TestDatabase } from '../support/testDatabases.js';

const logger = createLogger('silent');

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();
const alice: SessionSource = {
  platform: 'telegram',
  chatType: 'dm',
  chatId: '12345',
  chatName: 'Alice',
  userId: '12345',
  userName: 'Alice',
  isBot: false,
  roleAuthorized: false,
};
const guild: SessionSource = {
  platform: 'discord',
  chatType: 'group',
  chatId: '777',
  chatName: 'Builders',
  userId: 'u9',
  guildId: 'g1',
  isBot: false,
  roleAuthorized: true,
};
const aliceKey = 'agent:main:telegram:dm:12345';
const guildKey = 'agent:main:discord:group:777:u9';
const [s1, s2, s3, g1, g2] = [
  '20260301_090000_aaaaaaaa',
  '20260301_090400_bbbbbbbb',
  '20260301_091000_cccccccc',
  '20260301_090100_dddddddd',
  '20260301_091600_dddddddd',
];

const usage = (
  inputTokens: number,
  outputTokens: number,
  cacheReadTokens: number,
  cacheWriteTokens: number,
  lastPromptTokens: number | null,
  costUsd: number,
): TurnUsage => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
  lastPromptTokens,
  costUsd,
});

/** A user message and the assistant's reply, numbered from `firstIndex`. */
function turnMessages(turnIndex: number, firstIndex: number, minute: number): StoredMessage[] {
  return [
    { role: 'user', content: `question ${turnIndex}`, index: firstIndex, turnIndex, at: at(minute) },
    { role: 'assistant', content: `answer ${turnIndex}`, index: firstIndex + 1, turnIndex, at: at(minute) },
  ];
}

function turn(turnIndex: number, firstIndex: number, turnUsage: TurnUsage, minute: number, slot?: string): SessionStreamEvent {
  return {
    type: 'TurnRecorded',
    data: {
      turnIndex,
      status: 'completed',
      messages: turnMessages(turnIndex, firstIndex, minute),
      usage: turnUsage,
      at: at(minute),
      ...(slot ? { slot } : {}),
    },
  };
}

/** What a checkpoint captured: here just counters and transcript, in the main slot. */
function timeline(turnCount: number, counters: SessionCounters, transcript: SessionTimeline['transcript']): SessionTimeline {
  return {
    turnCount,
    nextMessageIndex: transcript.length,
    counters,
    transcript,
    memory: [],
    slots: [{ name: 'main', createdAt: at(0) }],
    currentSlot: 'main',
    lastSummaryTurn: null,
    headCheckpointId: null,
  };
}

function opened(sessionKey: string, origin: SessionSource, sessionId: string, minute: number): ConversationEvent[] {
  return [
    { type: 'ConversationOpened', data: { sessionKey, origin, displayName: origin.chatName ?? null, gatewayId: 'gw-1', at: at(minute) } },
    {
      type: 'SessionBound',
      data: { sessionId, reason: 'new', previousSessionId: null, previousHadActivity: false, origin, gatewayId: 'gw-1', at: at(minute) },
    },
  ];
}

const created = (sessionId: string, sessionKey: string, origin: SessionSource, minute: number): SessionStreamEvent => ({
  type: 'SessionCreated',
  data: { sessionId, sessionKey, origin, reason: 'new', at: at(minute) },
});

for (const backend of testBackends()) {
  describe(`sessions-index projection: ${backend.label}`, () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let dataSource: DataSource;
    let runner: ProjectionRunner;
    const appended: Record<string, Array<ConversationEvent | SessionStreamEvent>> = {};
    let lastPosition = 0;

    beforeAll(async () => {
      database = await backend.open();
      store = await PostgresEventStore.open(database.pool, { schema: database.schema, listenConnectionString: database.connectionString });
      dataSource = await openReadModelDatabase(database.pool, database.schema, [sessionsIndexProjection]);
      runner = new ProjectionRunner({
        store,
        dataSource,
        schema: database.schema,
        projections: [sessionsIndexProjection],
        lease: database.connectionString ? new AdvisoryLockLease(database.connectionString, `test:${database.schema}`) : new SoleOwnerLease(),
        logger,
        batchSize: 7,
      });
      await runner.start();
    });

    afterAll(async () => {
      await runner?.stop();
      await dataSource?.destroy();
      await store?.close();
      await database?.dispose();
    });

    /** Appends to one stream and waits until the projection has applied it. */
    async function append(streamName: string, events: Array<ConversationEvent | SessionStreamEvent>): Promise<void> {
      (appended[streamName] ??= []).push(...events);
      const { position } = await store.append(streamName, events as unknown as NewEvent[], 'any');
      lastPosition = position;
      expect(await runner.waitForPosition(['sessions-index'], position, 30_000)).toBe(true);
    }
    const conversation = (sessionKey: string, ...events: ConversationEvent[]) => append(conversationStreamName(sessionKey), events);
    const session = (sessionId: string, ...events: SessionStreamEvent[]) => append(sessionStreamName(sessionId), events);
    const entry = (sessionKey: string) => dataSource.getRepository(ConversationEntryEntity).findOneBy({ sessionKey });
    const record = (sessionId: string) => dataSource.getRepository(SessionRecordEntity).findOneBy({ sessionId });
    const allRows = async () => ({
      entries: await dataSource.getRepository(ConversationEntryEntity).find({ order: { sessionKey: 'ASC' } }),
      records: await dataSource.getRepository(SessionRecordEntity).find({ order: { sessionId: 'ASC' } }),
    });

    const s1AfterTwoTurns = {
      inputTokens: 250,
      outputTokens: 50,
      cacheReadTokens: 15,
      cacheWriteTokens: 2,
      totalTokens: 317,
      estimatedCostUsd: 0.3,
      lastPromptTokens: 160,
      turnCount: 2,
    };
    const zero = {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      totalTokens: 0,
      estimatedCostUsd: 0,
      lastPromptTokens: 0,
      turnCount: 0,
    };

    it('opens an entry bound to a new session with zero counters', async () => {
      await conversation(aliceKey, ...opened(aliceKey, alice, s1, 0));
      await session(s1, created(s1, aliceKey, alice, 0));
      await conversation(guildKey, ...opened(guildKey, guild, g1, 1));
      await session(g1, created(g1, guildKey, guild, 1));
      expect(await entry(aliceKey)).toEqual({
        tenant: '',
        sessionKey: aliceKey,
        sessionId: s1,
        createdAt: new Date(at(0)),
        updatedAt: new Date(at(0)),
        origin: alice,
        displayName: 'Alice',
        platform: 'telegram',
        chatType: 'dm',
        gatewayId: 'gw-1',
        suspended: false,
        resumePending: false,
        resumeReason: null,
        lastResumeMarkedAt: null,
        wasAutoReset: false,
        autoResetReason: null,
        resetHadActivity: false,
        resetPolicy: null,
        isFreshReset: false,
        carried: null,
        expired: null,
        ...zero,
      });
      expect(await record(s1)).toEqual({
        tenant: '',
        sessionId: s1,
        sessionKey: aliceKey,
        status: 'active',
        createdAt: new Date(at(0)),
        updatedAt: new Date(at(0)),
        endedAt: null,
        endReason: null,
        origin: alice,
        messageCount: 0,
        ...zero,
        turnInFlightIndex: null,
        turnInFlightSince: null,
        lastAbandonedTurn: null,
      });
    });

    it('accumulates turns on the record and the entry, cost rounded to micro-dollars', async () => {
      await session(s1, turn(1, 0, usage(100, 20, 5, 0, 100, 0.1), 2));
      // 0.1 + 0.2 is 0.30000000000000004 in floating point; the decider rounds it to 0.3.
      await session(s1, turn(2, 2, usage(150, 30, 10, 2, 160, 0.2), 3));
      expect(await record(s1)).toMatchObject({ ...s1AfterTwoTurns, messageCount: 4, updatedAt: new Date(at(3)) });
      expect(await entry(aliceKey)).toMatchObject({ ...s1AfterTwoTurns, updatedAt: new Date(at(3)), createdAt: new Date(at(0)) });
      expect(await entry(guildKey)).toMatchObject(zero);
    });

    it('counts only live messages after a rewind, leaving counters and the entry alone', async () => {
      await session(s1, { type: 'TranscriptRewound', data: { fromMessageIndex: 2, rewoundCount: 2, turnsUndone: 1, at: at(4), slot: 'main' } });
      expect(await record(s1)).toMatchObject({ ...s1AfterTwoTurns, messageCount: 2, updatedAt: new Date(at(4)) });
      expect(await entry(aliceKey)).toMatchObject({ ...s1AfterTwoTurns, updatedAt: new Date(at(3)) });
    });

    it('zeroes the entry counters on a reset to a new session and ends the old one', async () => {
      await conversation(aliceKey, {
        type: 'SessionBound',
        data: { sessionId: s2, reason: 'reset', previousSessionId: s1, previousHadActivity: true, origin: alice, gatewayId: 'gw-1', at: at(5) },
      });
      await session(s1, { type: 'SessionEnded', data: { reason: 'reset', at: at(5) } });
      await session(s2, created(s2, aliceKey, alice, 5));
      expect(await entry(aliceKey)).toMatchObject({
        sessionId: s2,
        createdAt: new Date(at(5)),
        updatedAt: new Date(at(5)),
        isFreshReset: true,
        resetHadActivity: true,
        wasAutoReset: false,
        ...zero,
      });
      expect(await record(s1)).toMatchObject({ status: 'ended', endReason: 'reset', endedAt: new Date(at(5)), ...s1AfterTwoTurns });

      await conversation(aliceKey, { type: 'ConversationTouched', data: { gatewayId: 'gw-2', at: at(6) } });
      expect(await entry(aliceKey)).toMatchObject({ isFreshReset: false, gatewayId: 'gw-2', updatedAt: new Date(at(6)) });

      // A turn that reports no prompt size keeps the last one; a rewrite replaces the live transcript.
      await session(s2, turn(1, 0, usage(10, 5, 0, 0, null, 0.000_001), 7));
      const rewritten = [{ role: 'system' as const, content: 'summary', index: 2, turnIndex: 1, at: at(8) }];
      await session(s2, { type: 'TranscriptRewritten', data: { messages: rewritten, replacedCount: 2, at: at(8) } });
      expect(await record(s2)).toMatchObject({ messageCount: 1, totalTokens: 15, lastPromptTokens: 0, estimatedCostUsd: 0.000_001, turnCount: 1 });
      expect(await entry(aliceKey)).toMatchObject({ totalTokens: 15, turnCount: 1, updatedAt: new Date(at(7)) });
    });

    it('shows the old counters again when switching back to an old session', async () => {
      await conversation(aliceKey, {
        type: 'SessionBound',
        data: { sessionId: s1, reason: 'switch', previousSessionId: s2, previousHadActivity: true, origin: guild, gatewayId: 'gw-2', at: at(9) },
      });
      await session(s2, { type: 'SessionEnded', data: { reason: 'switch', at: at(9) } });
      await session(s1, { type: 'SessionReopened', data: { reason: 'switch', at: at(9) } });
      // A switch keeps the entry's origin and, as a switch, reports no reset activity.
      expect(await entry(aliceKey)).toMatchObject({
        sessionId: s1,
        origin: alice,
        resetHadActivity: false,
        isFreshReset: false,
        createdAt: new Date(at(9)),
        ...s1AfterTwoTurns,
      });
      expect(await record(s1)).toMatchObject({ status: 'active', endedAt: null, endReason: null, updatedAt: new Date(at(9)) });

      await session(s1, turn(3, 4, usage(1, 1, 0, 0, 170, 0), 10));
      expect(await entry(aliceKey)).toMatchObject({
        inputTokens: 251,
        outputTokens: 51,
        totalTokens: 319,
        lastPromptTokens: 170,
        turnCount: 3,
        updatedAt: new Date(at(10)),
      });
      // The ended session's turns of the past do not touch the entry that moved on.
      expect(await record(s2)).toMatchObject({ status: 'ended', totalTokens: 15 });
    });

    it('sets and clears the resume and suspend flags as the conversation state does', async () => {
      await conversation(aliceKey, { type: 'ResumeMarked', data: { reason: 'restart_timeout', at: at(11) } });
      expect(await entry(aliceKey)).toMatchObject({
        resumePending: true,
        resumeReason: 'restart_timeout',
        lastResumeMarkedAt: new Date(at(11)),
        updatedAt: new Date(at(11)),
      });
      await conversation(aliceKey, { type: 'ResumeCleared', data: { reason: 'turn_completed', at: at(12) } });
      expect(await entry(aliceKey)).toMatchObject({
        resumePending: false,
        resumeReason: null,
        lastResumeMarkedAt: new Date(at(11)),
        updatedAt: new Date(at(11)),
      });
      await conversation(aliceKey, { type: 'Suspended', data: { reason: 'stop', at: at(13) } });
      expect(await entry(aliceKey)).toMatchObject({ suspended: true, updatedAt: new Date(at(13)) });

      await conversation(aliceKey, {
        type: 'SessionBound',
        data: { sessionId: s3, reason: 'suspended', previousSessionId: s1, previousHadActivity: true, origin: alice, gatewayId: 'gw-1', at: at(14) },
      });
      await session(s1, { type: 'SessionEnded', data: { reason: 'suspended', at: at(14) } });
      await session(s3, created(s3, aliceKey, alice, 14));
      expect(await entry(aliceKey)).toMatchObject({
        sessionId: s3,
        suspended: false,
        wasAutoReset: true,
        autoResetReason: 'suspended',
        resetHadActivity: true,
        lastResumeMarkedAt: null,
        ...zero,
      });

      await conversation(guildKey, { type: 'ResumeMarked', data: { reason: 'shutdown_timeout', at: at(15) } });
      await conversation(guildKey, {
        type: 'SessionBound',
        data: { sessionId: g2, reason: 'resume_expired', previousSessionId: g1, previousHadActivity: false, origin: guild, gatewayId: 'gw-1', at: at(16) },
      });
      // Every flag the entry holds is the one evolveConversation folds from the same stream.
      const folded = appended[conversationStreamName(guildKey)]!.reduce(
        (state, event) => evolveConversation(state, event as ConversationEvent),
        initialConversationState(),
      );
      const row = (await entry(guildKey))!;
      const fields = [
        'sessionId',
        'gatewayId',
        'origin',
        'displayName',
        'suspended',
        'resumePending',
        'resumeReason',
        'wasAutoReset',
        'autoResetReason',
        'resetHadActivity',
        'isFreshReset',
      ] as const;
      for (const field of fields) expect(row[field], field).toEqual(folded[field]);
      expect(row.createdAt?.toISOString()).toBe(folded.createdAt);
      expect(row.lastResumeMarkedAt?.toISOString() ?? null).toBe(folded.lastResumeMarkedAt);
    });

    it('follows rollbacks, slots, forks and destruction as evolveSession folds them', async () => {
      const slackKey = 'agent:main:slack:channel:c1';
      const slack: SessionSource = { platform: 'slack', chatType: 'channel', chatId: 'c1', isBot: false, roleAuthorized: false };
      const [k1, k2] = ['20260301_092100_11111111', '20260301_093000_22222222'];
      const afterFirstTurn = {
        inputTokens: 100,
        outputTokens: 10,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        totalTokens: 110,
        estimatedCostUsd: 0.5,
        lastPromptTokens: 100,
      };
      await conversation(slackKey, ...opened(slackKey, slack, k1, 21));
      await session(k1, created(k1, slackKey, slack, 21), turn(1, 0, usage(100, 10, 0, 0, 100, 0.5), 22));
      await session(
        k1,
        { type: 'CheckpointCreated', data: { checkpointId: 'cp-2', label: 'before', turnIndex: 1, at: at(23) } },
        turn(2, 2, usage(50, 5, 0, 0, 150, 0.25), 24),
      );
      expect(await record(k1)).toMatchObject({ totalTokens: 165, turnCount: 2, messageCount: 4 });

      // The first turn's two messages are kept as they are, the second turn's dropped.
      const { transcript: _transcript, ...restored } = timeline(
        1,
        afterFirstTurn,
        turnMessages(1, 0, 22).map((message) => ({ ...message, slot: 'main', deleted: false })),
      );
      const transcript = { kept: 2, following: [], liveCount: 2 };
      await session(k1, {
        type: 'RolledBack',
        data: { checkpointId: 'cp-2', targetRevision: 2, fromRevision: 3, fromTurnIndex: 2, restored: { ...restored, transcript }, at: at(25) },
      });
      expect(await record(k1)).toMatchObject({ ...afterFirstTurn, turnCount: 1, messageCount: 2, updatedAt: new Date(at(25)) });
      // The entry shows the restored counters; a rollback is not a turn, so its activity time stays.
      expect(await entry(slackKey)).toMatchObject({ ...afterFirstTurn, turnCount: 1, updatedAt: new Date(at(24)) });

      // A rewrite replaces only its own slot's live messages.
      await session(
        k1,
        { type: 'SlotCreated', data: { name: 'side', at: at(26) } },
        { type: 'SlotSwitched', data: { name: 'side', previous: 'main', at: at(26) } },
      );
      await session(k1, turn(2, 4, usage(1, 1, 0, 0, null, 0), 27, 'side'));
      const summary: StoredMessage[] = [{ role: 'system', content: 'summary', index: 6, turnIndex: 2, at: at(28) }];
      await session(k1, { type: 'TranscriptRewritten', data: { messages: summary, replacedCount: 2, at: at(28), slot: 'side' } });
      await session(k1, { type: 'MemoryEntrySet', data: { name: 'topic', value: 'release', metadata: {}, at: at(29) } });
      expect(await record(k1)).toMatchObject({ messageCount: 3, turnCount: 2, totalTokens: 112, updatedAt: new Date(at(29)) });

      // A fork starts from its parent's captured state: counters, turns and live messages included.
      const startingState = timeline(1, afterFirstTurn, [
        ...turnMessages(1, 0, 22).map((message) => ({ ...message, slot: 'main', deleted: false })),
        { role: 'system', content: 'old', index: 2, turnIndex: 1, at: at(22), slot: 'main', deleted: true },
      ]);
      await session(k2, {
        type: 'SessionCreated',
        data: {
          sessionId: k2,
          sessionKey: slackKey,
          origin: slack,
          reason: 'fork',
          at: at(30),
          parentSessionId: k1,
          forkOf: { sessionId: k1, checkpointId: 'cp-2', revision: 2 },
          startingState,
        },
      });
      expect(await record(k2)).toMatchObject({ ...afterFirstTurn, turnCount: 1, messageCount: 2, status: 'active', createdAt: new Date(at(30)) });
      await session(k2, { type: 'SessionDestroyed', data: { reason: 'destroyed', at: at(31) } });
      expect(await record(k2)).toMatchObject({ status: 'destroyed', updatedAt: new Date(at(31)), messageCount: 2 });
      expect(await entry(slackKey)).toMatchObject({ sessionId: k1, totalTokens: 112 });
    });

    it('ignores event types it does not know and events of streams it does not index', async () => {
      const before = await allRows();
      await append(conversationStreamName(aliceKey), [{ type: 'SomethingNew', data: {} } as unknown as ConversationEvent]);
      await append('job-1', [{ type: 'TurnRecorded', data: {} } as unknown as SessionStreamEvent]);
      await append(sessionStreamName('20260301_095900_eeeeeeee'), [turn(1, 0, usage(1, 1, 1, 1, 1, 1), 17)]);
      expect(await allRows()).toEqual(before);
    });

    it('deletes the entry on prune and keeps the session records', async () => {
      await conversation(aliceKey, { type: 'ConversationPruned', data: { idleSince: at(14), at: at(18) } });
      expect(await entry(aliceKey)).toBeNull();
      expect(await entry(guildKey)).not.toBeNull();
      expect((await record(s1))?.turnCount).toBe(3);
      expect((await record(s2))?.status).toBe('ended');

      // A key that comes back after a prune opens a fresh entry.
      await conversation(aliceKey, ...opened(aliceKey, alice, '20260301_092000_ffffffff', 20));
      expect(await entry(aliceKey)).toMatchObject({ sessionId: '20260301_092000_ffffffff', createdAt: new Date(at(20)), ...zero });
    });

    it('rebuilds from position 0 to exactly the same rows', async () => {
      const live = await allRows();
      expect(live.entries).toHaveLength(3);
      expect(live.records).toHaveLength(6);
      // The last append's own position: headPosition() may lag behind it while any transaction is open.
      expect((await runner.rebuild('sessions-index')).position).toBe(0);
      expect(await runner.waitForPosition(['sessions-index'], lastPosition, 10_000)).toBe(true);
      expect(await allRows()).toEqual(live);
    });

    it('holds usage sums past bigint that a log written before usage was bounded can contain', async () => {
      // 1,100 turns at 2^53 - 1 in every field: each counter passes 2^63 - 1, where bigint columns stopped the projection.
      const key = 'agent:main:cli:dm:heavy';
      const heavy = '20260301_092000_eeeeeeee';
      const max = Number.MAX_SAFE_INTEGER;
      const source: SessionSource = { platform: 'cli', chatType: 'dm', chatId: 'heavy', isBot: false, roleAuthorized: false };
      await conversation(key, ...opened(key, source, heavy, 20));
      const turns = Array.from({ length: 1_100 }, (_, index) => turn(index + 1, index * 2, usage(max, max, max, max, max, 1e9), 20));
      await session(heavy, created(heavy, key, source, 20), ...turns);
      const expected = turns.reduce((sum) => sum + max, 0);
      expect(expected).toBeGreaterThan(2 ** 63);
      expect(await record(heavy)).toMatchObject({ inputTokens: expected, cacheWriteTokens: expected, lastPromptTokens: max, turnCount: 1_100 });
      expect((await entry(key))!.totalTokens).toBe(expected + expected + expected + expected);
      expect(runner.localStates().find((loop) => loop.name === 'sessions-index')).toMatchObject({ state: 'live', lastError: null });
      // And a rebuild folds the same log to the same rows.
      const live = await allRows();
      await runner.rebuild('sessions-index');
      expect(await runner.waitForPosition(['sessions-index'], lastPosition, 10_000)).toBe(true);
      expect(await allRows()).toEqual(live);
    });
  });
}
