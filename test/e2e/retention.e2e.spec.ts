// Retention over real HTTP with a ManualClock: old transcript content erased in place (skeleton kept), checkpoints
// beyond the newest K expired (409 on rollback and fork), a dry run that writes nothing, the audit on retention-log,
// applications at once and on two instances that neither fail nor erase twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PROJECTIONS, type ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { eventually } from '../support/eventually.js';
import { RetentionScheduler } from '../../src/modules/retention/retentionScheduler.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { ApplyRetentionHandler } from '../../src/modules/retention/commands/applyRetention.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { apiErrorOf, forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

const DAY = 86_400_000;
const RETENTION_ENV = {
  RETENTION_CONTENT_DAYS: '30',
  RETENTION_CONTENT_DAYS_BY_PLATFORM: JSON.stringify({ discord: 7, slack: null }),
  RETENTION_KEEP_CHECKPOINTS: '2',
  RETENTION_INTERVAL_MINUTES: '0',
  RUNTIME_WATCHDOG_INTERVAL_MS: '0',
};

async function ok(service: TestApp, method: string, path: string, body?: unknown) {
  const response = await service.request(method, path, body === undefined ? {} : { body });
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
  return response.body;
}

function helpers(service: () => TestApp, prefix: string) {
  let chat = 0;
  return {
    session: async (platform: string) =>
      (await ok(service(), 'POST', '/v1/sessions/resolve', { source: { platform, chatType: 'dm', chatId: `${prefix}-${++chat}` } })).sessionId as string,
    turn: (sessionId: string, words: string) =>
      ok(service(), 'POST', `/v1/sessions/${sessionId}/turns`, {
        messages: [
          { role: 'user', content: words, name: 'Alice' },
          { role: 'assistant', content: `re ${words}`, toolCalls: [{ name: 'lookup', arguments: { q: words } }] },
        ],
        usage: { inputTokens: 10, outputTokens: 4, costUsd: 0.001 },
      }),
    contents: async (sessionId: string) =>
      ((await ok(service(), 'GET', `/v1/sessions/${sessionId}/transcript`)).messages as Array<{ content: unknown }>).map((message) => message.content),
  };
}

const clockOf = clockPerBackend(new Date('2026-03-01T12:00:00Z'));

forEachBackend(
  'retention',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    let chat = 0;
    const session = async (platform: string) =>
      (await ledger.client.resolveSession({ source: sourceOn(platform, `${ledger.backend}-retention-${++chat}`) })).sessionId;
    const turn = (sessionId: string, words: string) =>
      ledger.client.recordTurn(sessionId, {
        messages: [
          { role: 'user', content: words, name: 'Alice' },
          { role: 'assistant', content: `re ${words}`, toolCalls: [{ name: 'lookup', arguments: { q: words } }] },
        ],
        usage: { inputTokens: 10, outputTokens: 4, costUsd: 0.001 },
      });
    const contents = async (sessionId: string) => (await ledger.client.getTranscript(sessionId)).messages.map((message) => message.content);

    it('a dry run reports what would go and writes nothing; applying erases old content in place, keeps the skeleton, expires old checkpoints; twice changes nothing', async () => {
      const { client, service } = ledger;
      const telegram = await session('telegram');
      const discord = await session('discord');
      const slack = await session('slack');
      await turn(telegram, 'tgold1');
      const manual = await client.createCheckpoint(telegram, { label: 'before two' });
      await turn(telegram, 'tgold2');
      await turn(discord, 'dcold1');
      await turn(slack, 'skold1');
      clock.advance(10 * DAY);
      await turn(telegram, 'tgnew3');
      await turn(discord, 'dcnew2');
      const before = await client.getSession(discord);
      const checkpointsBefore = (await client.listCheckpoints(telegram)).checkpoints;
      expect(checkpointsBefore).toHaveLength(4);

      const head = await service.lastPosition();
      const dry = await client.applyRetention({ dryRun: true });
      expect(await service.lastPosition()).toBe(head);
      expect(dry).toMatchObject({
        retentionId: null,
        dryRun: true,
        policy: { contentDays: 30, contentDaysByPlatform: { discord: 7, slack: null }, keepCheckpoints: 2 },
      });
      // Discord keeps 7 days: its first turn (two messages) goes. Telegram keeps 30, Slack for ever.
      expect(dry.content).toMatchObject({ sessionsExpired: 1, eventsRewritten: 1, messagesExpired: 2, itemsExpired: 0, truncated: false });
      expect(dry.content.sessions).toEqual([
        { sessionId: discord, tenant: null, platform: 'discord', cutoff: '2026-03-04T12:00:00.000Z', eventsRewritten: 1, messagesExpired: 2, itemsExpired: 0 },
      ]);
      // The two oldest of Telegram's four checkpoints (the first turn's automatic one and the manual one).
      const expiring = checkpointsBefore
        .slice(2)
        .map((checkpoint) => checkpoint.checkpointId)
        .reverse();
      expect(dry.checkpoints).toEqual({
        sessions: [{ sessionId: telegram, tenant: null, checkpointIds: expiring }],
        checkpointSessions: 1,
        checkpointsExpired: 2,
        truncated: false,
      });
      expect(expiring).toContain(manual.checkpointId);
      expect(await contents(discord)).toEqual(['dcold1', 're dcold1', 'dcnew2', 're dcnew2']);

      // The search index is repaired for the expired sessions alone, not rebuilt: its checkpoint never goes back.
      const projections = service.app.get<ProjectionRunner>(PROJECTIONS);
      const searchPosition = async () => (await projections.storedStatus('transcript-search')).position;
      const headBefore = await service.lastPosition();
      await eventually(searchPosition, (position) => position >= headBefore, 10_000);
      const checkpointPositions: number[] = [];
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          checkpointPositions.push(await searchPosition());
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const rebuild = vi.spyOn(projections, 'rebuild');
      const applied = await client.applyRetention({});
      // Searched at once, without waiting for any position (the client's own included): the kept words of every session are there, the expired ones not.
      const searchNow = async (word: string) => (await client.search({ q: word }, { minPosition: 0 })).hits;
      expect(await searchNow('dcold1')).toEqual([]);
      expect((await searchNow('dcnew2')).map((hit) => hit.sessionId)).toContain(discord);
      expect((await searchNow('tgold1')).map((hit) => hit.sessionId)).toContain(telegram);
      watching = false;
      await watcher;
      checkpointPositions.push(await searchPosition());
      expect(rebuild).not.toHaveBeenCalled();
      rebuild.mockRestore();
      expect(checkpointPositions.every((position, index) => index === 0 || position >= checkpointPositions[index - 1]!)).toBe(true);
      expect(checkpointPositions[0]).toBeGreaterThanOrEqual(headBefore);
      expect(applied.retentionId).toMatch(/^retention_[0-9a-f]{16}$/);
      expect({ content: applied.content, checkpoints: applied.checkpoints }).toEqual({ content: dry.content, checkpoints: dry.checkpoints });
      expect(applied.projectionsRepaired).toEqual(['transcript-search']);

      // In place: roles, numbering, counters and the lifecycle stay; the old words, names and tool calls do not.
      expect(await contents(discord)).toEqual(['[erased]', '[erased]', 'dcnew2', 're dcnew2']);
      const transcript = (await client.getTranscript(discord)).messages;
      expect(transcript[0]).toEqual({ role: 'user', content: '[erased]', index: 0, turnIndex: 1, at: '2026-03-01T12:00:00.000Z', slot: 'main' });
      expect(transcript[1]).not.toHaveProperty('toolCalls');
      const after = await client.getSession(discord);
      for (const field of ['status', 'turnCount', 'counters', 'updatedAt', 'createdAt'] as const) expect(after[field]).toEqual(before[field]);
      expect(await contents(telegram)).toEqual(['tgold1', 're tgold1', 'tgold2', 're tgold2', 'tgnew3', 're tgnew3']);
      expect(await contents(slack)).toEqual(['skold1', 're skold1']);

      // Search no longer finds the expired words once its index is rebuilt, and still finds the rest.
      const search = async (word: string) => (await client.search({ q: word }, { minPosition: applied.position })).hits;
      expect(await search('dcold1')).toEqual([]);
      expect(await search('dcnew2')).not.toEqual([]);

      // The expired checkpoints leave the listing; a rollback or fork to one is refused and writes nothing.
      const listed = (await client.listCheckpoints(telegram)).checkpoints.map((checkpoint) => checkpoint.checkpointId);
      expect(listed).toEqual(checkpointsBefore.slice(0, 2).map((checkpoint) => checkpoint.checkpointId));
      const revision = (await client.getSession(telegram)).revision;
      for (const refusedCall of [client.rollback(telegram, manual.checkpointId), client.forkSession(telegram, { checkpointId: manual.checkpointId })]) {
        const refused = await apiErrorOf(refusedCall);
        expect(refused).toMatchObject({
          status: 409,
          code: 'CHECKPOINT_CONTENT_EXPIRED',
          details: { sessionId: telegram, checkpointId: manual.checkpointId },
        });
      }
      expect((await client.getSession(telegram)).revision).toBe(revision);
      await client.rollback(telegram, listed[1]!);
      expect(await contents(telegram)).toEqual(['tgold1', 're tgold1', 'tgold2', 're tgold2']);

      // The audit: the application on retention-log, the expiry in the session's own events, the rewritten event marked.
      const log = await service.infrastructure.eventStore.readStream('retention-log');
      expect(log.map((event) => event.type)).toEqual(['RetentionApplied', 'RetentionCompleted']);
      expect(log[0]!.data).toMatchObject({ retentionId: applied.retentionId, part: 1, eventsRewritten: 1, at: '2026-03-11T12:00:00.000Z' });
      expect(log[1]!.data).toMatchObject({ result: { sessionsExpired: 1, messagesExpired: 2, checkpointsExpired: 2, checkpointSessions: 1 } });
      const telegramEvents = (await client.sessionEvents(telegram, { fromRevision: 0, limit: 100 })).events;
      expect(telegramEvents.find((event) => event.type === 'CheckpointsExpired')).toMatchObject({
        data: { checkpointIds: expiring, keep: 2, retentionId: applied.retentionId },
      });
      const discordEvents = (await client.sessionEvents(discord, { fromRevision: 0, limit: 100 })).events;
      expect(discordEvents.filter((event) => event.metadata.contentExpiredBy === applied.retentionId)).toHaveLength(1);

      // Again: nothing left, nothing written.
      const headAfter = await service.lastPosition();
      const again = await client.applyRetention({});
      expect(again.content.sessions).toEqual([]);
      expect(again.checkpoints.sessions).toEqual([]);
      expect(await service.lastPosition()).toBe(headAfter);
    });

    it('the scheduled run applies the configured policy as time passes, and a fork keeps no copy of expired words', async () => {
      const telegram = await session('telegram');
      await turn(telegram, 'tgforked1');
      const fork = (await ledger.client.forkSession(telegram, {})).sessionId;
      expect(await contents(fork)).toEqual(['tgforked1', 're tgforked1']);
      clock.advance(29 * DAY);
      await turn(fork, 'tgforked2');
      const scheduler = ledger.service.app.get(RetentionScheduler);
      expect((await scheduler.runDue())!.content.sessions.map((expired: { sessionId: string }) => expired.sessionId)).not.toContain(fork);
      clock.advance(2 * DAY);
      const run = (await scheduler.runDue())!;
      expect(run.content.sessions.map((expired: { sessionId: string }) => expired.sessionId)).toEqual(expect.arrayContaining([telegram, fork]));
      expect(await contents(telegram)).toEqual(['[erased]', '[erased]']);
      expect(await contents(fork)).toEqual(['[erased]', '[erased]', 'tgforked2', 're tgforked2']);
    });

    it('two applications at once both answer, and each session is expired by one of them only', async () => {
      const sessions = [await session('discord'), await session('discord'), await session('discord')];
      for (const id of sessions) await turn(id, 'racing');
      // Three checkpoints each (the turn's and two more): one beyond the two kept.
      for (const id of sessions) for (const label of ['one', 'two']) await ledger.client.createCheckpoint(id, { label });
      clock.advance(8 * DAY);
      // Both succeed (the retention route answers 200 and nothing else when it does).
      const answers = await Promise.all([1, 2].map(() => ledger.client.applyRetention({})));
      const expired = answers.flatMap((answer) => answer.content.sessions.map((expiredSession) => expiredSession.sessionId));
      expect(new Set(expired).size).toBe(expired.length);
      expect(expired).toEqual(expect.arrayContaining(sessions));
      const expiredCheckpoints = answers.flatMap((answer) => answer.checkpoints.sessions.map((expiring) => expiring.sessionId));
      expect(new Set(expiredCheckpoints).size).toBe(expiredCheckpoints.length);
      for (const id of sessions) {
        expect(await contents(id)).toEqual(['[erased]', '[erased]']);
        const { events } = await ledger.client.sessionEvents(id, { fromRevision: 0, limit: 100 });
        expect(events.filter((event) => event.type === 'CheckpointsExpired')).toHaveLength(1);
      }
    });

    it('a repair racing turns on the same sessions leaves the search rows a rebuild would build: none lost, none doubled', async () => {
      const ids = [await session('discord'), await session('discord'), await session('discord')];
      for (const id of ids) await turn(id, 'raceold');
      clock.advance(8 * DAY);
      let writing = true;
      const writer = (async () => {
        for (let round = 0; writing || round < 3; round++) for (const id of ids) await turn(id, `racenew${round}`);
      })();
      const applied = await ledger.client.applyRetention({ keepCheckpoints: null });
      writing = false;
      await writer;
      expect(applied.content.sessions.map((expired) => expired.sessionId)).toEqual(expect.arrayContaining(ids));
      const projections = ledger.service.app.get<ProjectionRunner>(PROJECTIONS);
      const rows = async () => {
        expect(await projections.waitForPosition(['transcript-search'], await ledger.service.lastPosition(), 30_000)).toBe(true);
        const { dataSource, schema } = projections.options;
        return dataSource.query(
          `SELECT session_id, seq, ordinal, message_index, deleted, body FROM "${schema}".search_messages WHERE session_id = ANY($1) ORDER BY session_id, seq`,
          [ids],
        );
      };
      const repaired = await rows();
      expect(repaired.filter((row: { body: string }) => row.body.includes('raceold'))).toEqual([]);
      await projections.rebuild('transcript-search');
      expect(await rows()).toEqual(repaired);
    });

    it('refuses an empty policy and a bad one with a 400, and needs an admin token', async () => {
      const { client, service } = ledger;
      expect(await refusalOf(client.applyRetention({ contentDays: null, contentDaysByPlatform: {}, keepCheckpoints: null }))).toEqual({
        status: 400,
        code: 'RETENTION_POLICY_EMPTY',
      });
      for (const policy of [{ contentDays: 0 }, { contentDaysByPlatform: { 'Bad Name': 3 } }, { keepCheckpoints: -1 }]) {
        expect(await refusalOf(client.applyRetention(policy))).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      }
      // A flag that is no boolean and an unknown field: bodies the typed client never sends.
      for (const body of [{ dryRun: 'yes' }, { other: 1 }]) {
        const refused = await service.request('POST', '/v1/admin/retention', { body });
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      }
    });

    it('takes platforms named __proto__ and constructor in the body as platforms like any other', async () => {
      const rawBody = '{"dryRun": true, "contentDaysByPlatform": {"__proto__": 3, "constructor": null}}';
      const answer = await ledger.service.request('POST', '/v1/admin/retention', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(answer.status, answer.text).toBe(200);
      expect(Object.entries(answer.body.policy.contentDaysByPlatform)).toEqual([
        ['__proto__', 3],
        ['constructor', null],
      ]);
    });
  },
  (backend) => ({ clock: clockOf(backend), env: RETENTION_ENV }),
);

for (const backend of e2eBackends()) {
  describe(`retention cut short after RetentionApplied: ${backend}`, () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const schema = uniqueSchema('retention_crash');
    const dataDir = mkdtempSync(join(tmpdir(), 'retention-crash-'));
    // One storage for both lives of the service: PGlite in a folder, or PostgreSQL schemas kept on close.
    const start = (keepSchema: boolean) =>
      startTestApp(backend, { schema, keepSchema, clock, env: { ...RETENTION_ENV, ...(backend === 'pglite' ? { DATA_DIR: dataDir } : {}) } });
    let service: TestApp | undefined;
    const { session, turn } = helpers(() => service!, `${backend}-retention-crash`);
    afterAll(async () => {
      await service?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('the next start repairs the search index and records RetentionCompleted once', async () => {
      service = await start(true);
      const discord = await session('discord');
      await turn(discord, 'crashold1');
      clock.advance(8 * DAY);
      const kept = await turn(discord, 'crashnew2');
      await ok(service, 'GET', `/v1/search?q=crashold1&minPosition=${kept.position}`);

      // The process dies right after the rewrite committed with its RetentionApplied: nothing after it runs.
      const refold = vi.spyOn(service.app.get<ProjectionRunner>(PROJECTIONS), 'refold').mockRejectedValue(new Error('the process died here'));
      expect((await service.request('POST', '/v1/admin/retention', { body: {} })).status).toBe(500);
      refold.mockRestore();
      const cut = await service.infrastructure.eventStore.readStream('retention-log');
      expect(cut.map((event) => event.type)).toEqual(['RetentionApplied']);
      const retentionId = cut[0]!.data.retentionId;
      const hits = async (app: TestApp, word: string) => [
        ...new Set(((await ok(app, 'GET', `/v1/search?q=${word}`)).hits as Array<{ sessionId: string }>).map((hit) => hit.sessionId)),
      ];
      // Left as the crash left it: the search still finds the expired words.
      expect(await hits(service, 'crashold1')).toEqual([discord]);
      await service.close();

      for (const life of ['the first restart', 'the second restart']) {
        service = await start(true);
        await service.app.get(RetentionScheduler).settled();
        const log = await service.infrastructure.eventStore.readStream('retention-log');
        expect(
          log.map((event) => event.type),
          life,
        ).toEqual(['RetentionApplied', 'RetentionCompleted']);
        expect(log[1]!.data).toMatchObject({ retentionId, result: { sessionsExpired: 1, messagesExpired: 2, projectionsRepaired: ['transcript-search'] } });
        expect(log[1]!.metadata).toMatchObject({ actor: 'retention-resumption' });
        expect(await hits(service, 'crashold1'), life).toEqual([]);
        expect(await hits(service, 'crashnew2'), life).toEqual([discord]);
        expect((await ok(service, 'GET', `/v1/sessions/${discord}/transcript`)).messages.map((message: { content: unknown }) => message.content)).toEqual([
          '[erased]',
          '[erased]',
          'crashnew2',
          're crashnew2',
        ]);
        await service.close();
      }
      service = undefined;
      // Nothing left unfinished: the handler finds no application to resume.
      service = await start(false);
      await service.app.get(RetentionScheduler).settled();
      expect(await service.app.get(ApplyRetentionHandler).resumeUnfinished()).toBe(0);
    });
  });
}

if (backendsUnderTest().includes('postgres')) {
  describe('retention on two instances sharing one PostgreSQL', () => {
    const schema = uniqueSchema('retention_multi');
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    let a: TestApp;
    let b: TestApp;
    const { session, turn } = helpers(() => a, 'retention-multi');
    beforeAll(async () => {
      a = await startTestApp('postgres', { schema, keepSchema: true, clock, env: RETENTION_ENV });
      b = await startTestApp('postgres', { schema, clock, env: RETENTION_ENV });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('both applying at once expire each session once', async () => {
      const ids = [await session('discord'), await session('discord')];
      for (const id of ids) await turn(id, 'twoinstances');
      clock.advance(8 * DAY);
      const runs = await Promise.all([a.app.get(RetentionScheduler).runDue(), b.app.get(RetentionScheduler).runDue()]);
      const expired = runs.flatMap((run) => run!.content.sessions.map((expiredSession) => expiredSession.sessionId));
      expect(expired.sort()).toEqual([...ids].sort());
    });

    it('the other instance stops serving the expired words from its cache on its own, within its follow interval', async () => {
      const ids = [await session('discord'), await session('discord')];
      for (const id of ids) await turn(id, 'cachedonb');
      // b caches the sessions' states.
      for (const id of ids) expect((await ok(b, 'GET', `/v1/sessions/${id}/transcript`)).messages[0].content).toBe('cachedonb');
      clock.advance(8 * DAY);
      // Only a applies; b learns of it from retention-log (read every 2 s), nothing in the test tells it.
      const run = (await a.app.get(RetentionScheduler).runDue())!;
      expect(run.content.sessions.map((expiredSession) => expiredSession.sessionId)).toEqual(expect.arrayContaining(ids));
      const firstOnB = async () => Promise.all(ids.map(async (id) => (await ok(b, 'GET', `/v1/sessions/${id}/transcript`)).messages[0].content));
      expect(await eventually(firstOnB, (contents) => contents.every((content) => content === '[erased]'), 10_000)).toEqual(['[erased]', '[erased]']);
    });
  });
}
