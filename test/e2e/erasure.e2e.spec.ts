// Erasure over real HTTP: a person's words and ids leave every table of the log and the read models, the skeleton stays, and nobody else is touched.
import { randomBytes, randomInt } from 'node:crypto';
import { expect, it } from 'vitest';
import { quoteIdentifier } from '../../src/database/migrate.js';
import type { SqlPool } from '../../src/database/sqlPool.js';
import { BoundedStateCache, type StateCache } from '../../src/events/boundedStateCache.js';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { gatewayStreamName } from '../../src/events/gateway/gatewayEvents.js';
import { STATE_CACHE } from '../../src/events/boundedStateCache.js';
import { createLogger } from '../../src/logging/logger.js';
import { ResolveSessionCommand, ResolveSessionHandler } from '../../src/modules/conversations/resolveSession.js';
import { ErasureCacheEviction } from '../../src/modules/erasure/erasureCacheEviction.js';
import { ERASURE_LOG_STREAM } from '../../src/events/erasure/erasureLogEvents.js';
import { allProjections } from '../../src/projections/allProjections.js';
import { SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { openPgliteDatabase, openPostgresDatabase } from '../support/testDatabases.js';
import { readServerSentEvents, type ServerSentEvent } from '../support/serverSentEvents.js';

const enc = encodeURIComponent;
const ADMIN = `ops-admin-${randomBytes(8).toString('hex')}`;
const WRITER = `gateway-writer-${randomBytes(8).toString('hex')}`;
const ACME = `acme-writer-${randomBytes(8).toString('hex')}`;
const READER = `default-reader-${randomBytes(8).toString('hex')}`;

/** Digits long enough that no position, count or timestamp holds them by chance. */
const digits = (count: number) => Array.from({ length: count }, (_, index) => String(randomInt(index === 0 ? 1 : 0, 10))).join('');

/** One person: ids a platform gives them, and a marker every word they say contains. */
function person(label: string) {
  const marker = `zq${label}${randomBytes(6).toString('hex')}`;
  return {
    marker,
    source: { platform: 'telegram', chatType: 'dm', chatId: digits(15), userId: `u${digits(14)}`, userName: `Alice ${marker}`, chatName: `Chat of ${marker}` },
  };
}

/** Every row of every table in a schema, as text: `table: row`. */
async function everyRow(pool: SqlPool, schema: string): Promise<string[]> {
  const tables = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [schema],
  );
  expect(tables.rows.length).toBeGreaterThan(0);
  const rows: string[] = [];
  for (const { table_name: table } of tables.rows) {
    const result = await pool.query<{ row: string }>(`SELECT t::text AS row FROM ${quoteIdentifier(schema)}.${quoteIdentifier(table)} AS t`);
    rows.push(...result.rows.map(({ row }) => `${table}: ${row}`));
  }
  return rows;
}

async function readModelRows(query: (sql: string) => Promise<unknown[]>, schema: string): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const projection of allProjections) {
    for (const table of projection.tables) rows[table] = await query(`SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(table)} ORDER BY 1, 2, 3`);
  }
  return rows;
}

forEachBackend(
  'erasure',
  (ledger) => {
    let head = 0;
    const call = async (method: string, path: string, body?: unknown, token = WRITER) => {
      const response = await ledger.service.request(method, path, { body, headers: { authorization: `Bearer ${token}` } });
      head = Math.max(head, response.body?.position ?? 0);
      return response;
    };
    const ok = async (method: string, path: string, body?: unknown, token = WRITER) => {
      const response = await call(method, path, body, token);
      expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
      return response.body;
    };
    const erase = (body: unknown, token = ADMIN) => call('POST', '/v1/admin/erase', body, token);
    const caughtUp = async (position: number) => {
      const { projections } = ledger.service.infrastructure;
      expect(await projections.waitForPosition(projections.projectionNames, position, 30_000)).toBe(true);
    };
    /** Rows holding any of the needles, in the event log's schema and the read models' schema. */
    const traces = async (needles: string[]) => {
      const pool = ledger.service.infrastructure.eventStorePool!;
      const rows = [
        ...(await everyRow(pool, ledger.service.config.eventStoreSchema)),
        ...(await everyRow(ledger.service.infrastructure.readModelPool, ledger.service.config.readModelSchema)),
      ];
      return rows.filter((row) => needles.some((needle) => row.includes(needle)));
    };

    it('removes every message and id of the person from the log, snapshots, caches and read models, keeping the skeleton', { timeout: 120_000 }, async () => {
      const alice = person('a');
      const bob = person('b');
      const { marker, source } = alice;
      const said = (what: string) => `${what} ${marker} (call me on ${source.chatId})`;

      // Alice: two sessions (a suspend between), turns, memory, a checkpoint and a rollback, a rewrite, a rewind,
      // a child and a fork, queued messages, a runtime thread with a question, a job, and a gateway restart naming her.
      const resolved = await ok('POST', '/v1/sessions/resolve', { source, gatewayId: 'gw-erasure' });
      const key: string = resolved.sessionKey;
      expect(key).toContain(source.chatId);
      const first: string = resolved.sessionId;
      const turn = (sessionId: string, what: string) =>
        ok('POST', `/v1/sessions/${sessionId}/turns`, {
          messages: [
            { role: 'user', content: said(what), name: source.userName, metadata: { from: source.userId } },
            { role: 'assistant', content: [{ type: 'text', text: said(`re ${what}`) }], toolCalls: [{ name: 'lookup', arguments: { who: source.userName } }] },
          ],
          usage: { inputTokens: 12, outputTokens: 5, costUsd: 0.001 },
        });
      await turn(first, 'hello');
      await ok('PUT', `/v1/sessions/${first}/memory/${enc(`phone-of-${marker}`)}`, { value: said('memory'), metadata: { note: marker } });
      const checkpoint = await ok('POST', `/v1/sessions/${first}/checkpoints`, { label: `before ${marker}` });
      await turn(first, 'second');
      await ok('POST', `/v1/sessions/${first}/rollback`, { checkpointId: checkpoint.checkpointId });
      await turn(first, 'third');
      await turn(first, 'fourth');
      await ok('POST', `/v1/sessions/${first}/rewind`, { turns: 1 });
      await ok('PUT', `/v1/sessions/${first}/transcript`, { messages: [{ role: 'system', content: said('summary') }] });
      const child = (await ok('POST', `/v1/sessions/${first}/children`, { agentName: 'researcher', metadata: { goal: said('research') } })).sessionId as string;
      await turn(child, 'child work');
      const fork = (await ok('POST', `/v1/sessions/${first}/fork`, { metadata: { why: marker } })).sessionId as string;
      await ok('POST', `/v1/conversations/${enc(key)}/queue`, {
        message: { id: `tg:${source.chatId}:1`, text: said('queued'), sender: { name: source.userName }, metadata: { chat: source.chatName } },
        mode: 'queue',
      });
      await ok('POST', `/v1/conversations/${enc(key)}/queue`, { message: { id: `tg:${source.chatId}:2`, text: said('follow-up') }, mode: 'interrupt' });
      await ok('POST', `/v1/conversations/${enc(key)}/queue`, { message: { id: `tg:${source.chatId}:3`, text: said('burst') }, mode: 'interrupt' });
      await ok('POST', `/v1/conversations/${enc(key)}/queue/next`);
      const runtime = await ok('POST', `/v1/conversations/${enc(key)}/runtime/turns`, { provider: 'codex', model: 'gpt-5', input: said('fix it') });
      const runtimeId: string = runtime.runtimeSessionId;
      await ok('POST', `/v1/runtime-sessions/${runtimeId}/events`, { type: 'progress', message: said('progress'), details: { file: marker } });
      await ok('POST', `/v1/runtime-sessions/${runtimeId}/events`, { type: 'question', questionId: 'q1', details: { text: said('which?') } });
      await ok('POST', `/v1/runtime-sessions/${runtimeId}/questions/q1`, { answer: said('that one') });
      await ok('POST', `/v1/runtime-sessions/${runtimeId}/events`, { type: 'completed', output: { summary: said('done') } });
      const job = await ok('POST', '/v1/jobs', {
        prompt: said('remind me'),
        schedule: '*/30 * * * *',
        deliverTo: { platform: 'telegram', chatId: source.chatId },
        origin: { platform: 'telegram', chatId: source.chatId, userId: source.userId, chatName: source.chatName, sessionKey: key },
      });
      await ok('POST', '/v1/gateways/gw-erasure/stopping', { activeKeys: [key], mode: 'restart' });
      await ok('POST', '/v1/gateways/gw-erasure/stopped', { drainTimedOut: [key] });
      // A start finds its resume candidates in the sessions index.
      await caughtUp(head);
      const started = await ok('POST', '/v1/gateways/gw-erasure/started', { bootId: 'boot-erasure-1' });
      expect(JSON.stringify(started)).toContain(key);
      await ok('POST', `/v1/conversations/${enc(key)}/suspend`, { reason: said('bye') });
      const second = (await ok('POST', '/v1/sessions/resolve', { source })).sessionId as string;
      expect(second).not.toBe(first);
      await turn(second, 'after suspend');

      // Bob shares the service, and even writes Alice's key in a message: only that mention changes.
      const bobSession = (await ok('POST', '/v1/sessions/resolve', { source: bob.source })).sessionId as string;
      await ok('POST', `/v1/sessions/${bobSession}/turns`, {
        messages: [
          { role: 'user', content: `${bob.marker} says hi` },
          { role: 'user', content: key },
        ],
      });

      // An event from before a schema change: v1 of TranscriptRewound still copied the rewound message's text.
      const legacy = await ledger.service.infrastructure.eventStore.append(
        sessionStreamName(first),
        [
          {
            type: 'TranscriptRewound',
            data: { fromMessageIndex: 1_000_000, rewoundCount: 0, turnsUndone: 0, targetText: said('copied'), at: new Date().toISOString() },
            metadata: { schemaVersion: 1 },
          },
        ],
        'any',
      );
      head = Math.max(head, legacy.position);

      await caughtUp(head);
      const needles = [marker, source.chatId, source.userId, key];
      const before = await traces(needles);
      // In the log, the read models and the snapshots (SNAPSHOT_EVERY=3) alike.
      for (const table of ['events', 'streams', 'conversation_entries', 'session_records', 'stream_snapshots', 'jobs', 'runtime_sessions', 'stream_index']) {
        expect(
          before.some((row) => row.startsWith(`${table}: `)),
          table,
        ).toBe(true);
      }

      // Refused: a write token, a malformed body, an unknown key; nothing changes.
      expect((await erase({ sessionKey: key }, WRITER)).body.error.code).toBe('INSUFFICIENT_SCOPE');
      for (const body of [{}, { sessionKey: 42 }, { sessionKey: key, extra: true }, { sessionKey: '' }, { sessionKey: key, tenant: 'Not A Tenant' }]) {
        const refused = await erase(body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        // A control character may already be refused by the edge's character check.
        expect(['VALIDATION_FAILED', 'UNSUPPORTED_CHARACTER']).toContain(refused.body.error.code);
      }
      for (const sessionKey of [`${key}0`, 'a\u001bb']) {
        const unknown = await erase({ sessionKey });
        expect([unknown.status, unknown.body.error.code], sessionKey).toEqual([404, 'CONVERSATION_NOT_FOUND']);
      }
      expect((await ok('GET', `/v1/sessions/${first}/transcript?includeDeleted=true`)).messages.length).toBeGreaterThan(0);

      const erased = await erase({ sessionKey: key });
      expect(erased.status, erased.text).toBe(200);
      expect(erased.body).toMatchObject({ tenant: null, sessionsDestroyed: 4, jobsRemoved: 1, streamsRenamed: 2 });
      expect(erased.body.eventsRewritten).toBeGreaterThan(20);
      expect(erased.body.projectionsRebuilt).toEqual(ledger.service.infrastructure.projections.projectionNames);
      for (const sessionId of [first, second, child, fork]) expect(erased.body.streams).toContain(sessionStreamName(sessionId));
      expect(erased.text).not.toContain(key);
      await caughtUp(head);

      // No trace in any table of either schema: not her words, not her ids, not her key.
      expect(await traces(needles)).toEqual([]);

      // The skeleton: every event is still there, in order, with its type, time and counters.
      const events = await ok('GET', `/v1/sessions/${first}/events?limit=1000`);
      const types = events.events.map((event: { type: string }) => event.type);
      expect(types[0]).toBe('SessionCreated');
      expect(types).toEqual(
        expect.arrayContaining([
          'TurnRecorded',
          'MemoryEntrySet',
          'CheckpointCreated',
          'RolledBack',
          'TranscriptRewound',
          'TranscriptRewritten',
          'ChildSessionCreated',
        ]),
      );
      expect(types.at(-1)).toBe('SessionDestroyed');
      const recorded = events.events.find((event: { type: string }) => event.type === 'TurnRecorded');
      expect(recorded.data.messages.map((message: { role: string; content: unknown }) => [message.role, message.content])).toEqual([
        ['user', '[erased]'],
        ['assistant', '[erased]'],
      ]);
      expect(recorded.data.usage).toMatchObject({ inputTokens: 12, outputTokens: 5 });
      expect(recorded.metadata.erasureId).toBe(erased.body.erasureId);
      const record = await ok('GET', `/v1/sessions/${first}`);
      expect(record).toMatchObject({ status: 'destroyed', origin: { platform: 'telegram', chatType: 'dm' } });
      expect(record.turnCount).toBeGreaterThan(0);
      expect(record.sessionKey).toMatch(/^erased:[0-9a-f]{24}$/);
      expect(JSON.stringify(record)).not.toContain(marker);
      expect((await ok('GET', `/v1/sessions/${child}/transcript`)).messages.map((message: { content: unknown }) => message.content)).toEqual([
        '[erased]',
        '[erased]',
      ]);

      // The erased sessions take no new content; the old key is unknown; a retried erasure answers the same result.
      const refusedTurn = await call('POST', `/v1/sessions/${first}/turns`, { messages: [{ role: 'user', content: 'more' }] });
      expect(refusedTurn.status).toBe(409);
      expect(refusedTurn.body.error.code).toBe('SESSION_DESTROYED');
      expect((await call('GET', `/v1/conversations/${enc(key)}`)).status).toBe(404);
      const again = await erase({ sessionKey: key });
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual(erased.body);
      // In another tenant the same key was never erased.
      expect((await erase({ sessionKey: key, tenant: 'acme' })).body.error.code).toBe('CONVERSATION_NOT_FOUND');

      // Nothing cached under either name, and the audit record names no one.
      const cache = ledger.service.app.get<StateCache>(STATE_CACHE);
      expect(cache.get(conversationStreamName(key), Date.now())).toBeUndefined();
      for (const name of erased.body.streams as string[]) {
        const cached = cache.get(name, Date.now());
        if (cached) expect(JSON.stringify(cached.state)).not.toContain(marker);
      }
      // Another instance that cached her session drops it when it reads the erasure log.
      const otherInstance = new BoundedStateCache({ maxEntries: 10 });
      otherInstance.set(sessionStreamName(first), { said: said('cached elsewhere') }, 3, 1, Date.now());
      const follower = new ErasureCacheEviction(ledger.service.infrastructure.eventStore, otherInstance, createLogger('silent'));
      expect(await follower.poll()).toBeGreaterThanOrEqual(1);
      expect(otherInstance.size).toBe(0);

      const log = await ledger.service.infrastructure.eventStore.readStream(ERASURE_LOG_STREAM);
      expect(log.at(-2)).toMatchObject({ type: 'PersonalDataErased', metadata: { actor: 'ops' }, data: { erasureId: erased.body.erasureId } });
      expect(log.at(-1)).toMatchObject({
        type: 'PersonalDataErasureCompleted',
        metadata: { actor: 'ops' },
        data: { erasureId: erased.body.erasureId, result: erased.body },
      });
      expect(JSON.stringify(log)).not.toMatch(new RegExp(`${marker}|${source.chatId}|${source.userId}`));
      // Her job is removed (a removed job reads as not found), so nothing more is sent to her chat.
      expect((await call('GET', `/v1/jobs/${job.id}`)).body.error.code).toBe('JOB_NOT_FOUND');

      // Bob is untouched but for the mention of her key; the service serves Alice afresh.
      const bobTranscript = await ok('GET', `/v1/sessions/${bobSession}/transcript`);
      expect(bobTranscript.messages[0].content).toBe(`${bob.marker} says hi`);
      expect(bobTranscript.messages[1].content).toMatch(/^erased:[0-9a-f]{24}$/);
      const again2 = await ok('POST', '/v1/sessions/resolve', { source });
      expect(again2).toMatchObject({ sessionKey: key, created: true });
      expect([first, second, child, fork]).not.toContain(again2.sessionId);
      expect(again2.entry.turnCount ?? 0).toBe(0);
      await turn(again2.sessionId, 'new start');

      // The rebuilt read models equal a replay of the rewritten log into a fresh database.
      await caughtUp(head);
      const live = await readModelRows((sql) => ledger.service.infrastructure.readModels.query(sql), ledger.service.config.readModelSchema);
      const freshDatabase = ledger.backend === 'postgres' ? await openPostgresDatabase(process.env.TEST_DATABASE_URL!) : await openPgliteDatabase();
      const fresh = await openReadModelDatabase(freshDatabase.pool, freshDatabase.schema, allProjections);
      const runner = new ProjectionRunner({
        store: ledger.service.infrastructure.eventStore,
        dataSource: fresh,
        schema: freshDatabase.schema,
        projections: allProjections,
        lease: new SoleOwnerLease(),
        logger: createLogger('silent'),
      });
      try {
        await runner.start();
        expect(await runner.waitForPosition(runner.projectionNames, head, 30_000)).toBe(true);
        expect(await readModelRows((sql) => fresh.query(sql), freshDatabase.schema)).toEqual(live);
      } finally {
        await runner.stop();
        await fresh.destroy();
        await freshDatabase.dispose();
      }
    });

    it('refuses ids with a control character at the resolve, naming the field, and erases a conversation stored under such an id before', async () => {
      const { marker, source } = person('c');
      for (const field of ['chatId', 'userId', 'threadId', 'chatIdAlt']) {
        for (const id of ['77\n88', '77\r88', '77\u001b88', '77\u007f88']) {
          const refused = await call('POST', '/v1/sessions/resolve', { source: { ...source, chatType: 'thread', [field]: id } });
          expect([refused.status, refused.body.error.code], `${field} ${JSON.stringify(id)}`).toEqual([400, 'VALIDATION_FAILED']);
          expect(refused.body.error.details).toEqual([expect.objectContaining({ path: `source.${field}` })]);
        }
      }
      // A conversation a resolve took such an id for, before they were refused: written past the edge's check.
      const stored = await ledger.service.app.get(ResolveSessionHandler).resolve(
        new ResolveSessionCommand({ ...source, chatType: 'dm', isBot: false, roleAuthorized: false, chatId: `77\n${source.chatId}` }, {}, false, 'default', {
          actor: 'test',
        }),
      );
      expect(stored.sessionKey).toContain('\n');
      await ok('POST', `/v1/sessions/${stored.sessionId}/turns`, { messages: [{ role: 'user', content: `my word ${marker}` }] });
      expect((await call('GET', `/v1/conversations/${enc(stored.sessionKey)}`)).body.error.code).toBe('INVALID_SESSION_KEY');
      const erased = await erase({ sessionKey: stored.sessionKey });
      expect(erased.status, erased.text).toBe(200);
      await caughtUp(head);
      expect((await ok('GET', `/v1/search?q=${marker}`, undefined, READER)).hits).toEqual([]);
      expect(await traces([marker])).toEqual([]);
    });

    it("turns a gateway's home channel that is the person's own chat into the erasure's pseudonym, in the log, the caches and the registry the prompt shows", async () => {
      const alice = person('h');
      const bob = person('o');
      const carol = person('c');
      const group = `-100${digits(12)}`;
      const register = (gatewayId: string, platforms: unknown[], token = WRITER) => ok('PUT', `/v1/gateways/${gatewayId}/platforms`, { platforms }, token);
      const home = (chatId: string, name: string) => ({ platform: 'telegram', displayName: 'Hermes', homeChannel: { chatId, name } });
      const suffix = randomBytes(4).toString('hex');
      const gateway = (name: string) => `gw-home-${name}-${suffix}`;
      // Alice's DM is the home channel of two gateways (a home channel set with /sethome in her DM is named after her);
      // the group's is set in a group she is in; another tenant's gateway names the same chat id.
      await register(gateway('a'), [
        home(alice.source.chatId, `DM with ${alice.marker}`),
        { platform: 'discord', homeChannel: { chatId: '8880001', name: 'bots' } },
      ]);
      await register(gateway('d'), [home(alice.source.chatId, `Alice ${alice.marker}`)]);
      await register(gateway('g'), [home(group, 'Ops room')]);
      await register(gateway('t'), [home(alice.source.chatId, `DM with ${alice.marker}`)], ACME);
      // Carol talks in that group, keyed per user: her DM (on Telegram its chat id is her user id) is a home channel too.
      await register(gateway('c'), [home(carol.source.userId, `Carol ${carol.marker}`)]);
      const aliceKey = (await ok('POST', '/v1/sessions/resolve', { source: alice.source })).sessionKey as string;
      const carolSource = { platform: 'telegram', chatType: 'group', chatId: group, userId: carol.source.userId, userName: carol.source.userName };
      const carolKey = (await ok('POST', '/v1/sessions/resolve', { source: carolSource })).sessionKey as string;
      expect(carolKey.endsWith(`:${group}:${carol.source.userId}`)).toBe(true);
      const bobKey = (await ok('POST', '/v1/sessions/resolve', { source: bob.source })).sessionKey as string;
      const prompt = async () => {
        const answer = await ok('GET', `/v1/conversations/${enc(bobKey)}/context?minPosition=${head}`);
        return answer.prompt as string;
      };
      // Read once before: the gateways' states are cached, and must not outlive the erasure.
      expect(await prompt()).toContain(`telegram: "DM with ${alice.marker}" (ID: "${alice.source.chatId}")`);
      await caughtUp(head);
      expect((await traces([alice.source.chatId, alice.marker])).some((row) => row.includes(`gateway-${gateway('a')}`))).toBe(true);

      const erased = await erase({ sessionKey: aliceKey });
      expect(erased.status, erased.text).toBe(200);
      expect(erased.body.streams).toEqual(expect.arrayContaining([`gateway-${gateway('a')}`, `gateway-${gateway('d')}`]));
      expect(erased.body.streams).not.toContain(`gateway-${gateway('g')}`);
      await caughtUp(head);

      // Nowhere in the default tenant's log, snapshots or read models; the other tenant's gateway is someone else's.
      expect((await traces([alice.source.chatId, alice.marker])).filter((row) => !row.includes(`acme~gateway-${gateway('t')}`))).toEqual([]);
      const registration = async (gatewayId: string, tenant?: string) => {
        const events = await ledger.service.infrastructure.eventStore.readStream(gatewayStreamName(gatewayId, tenant));
        return events.filter((event) => event.type === 'GatewayPlatformsRegistered').at(-1)!;
      };
      const [a, d] = [await registration(gateway('a')), await registration(gateway('d'))];
      const pseudonym = (a.data as { platforms: Array<{ homeChannel: { chatId: string } }> }).platforms[1]!.homeChannel.chatId;
      expect(pseudonym).toMatch(/^erased-[0-9a-f]{16}$/);
      expect(a.data).toMatchObject({
        platforms: [
          { platform: 'discord', homeChannel: { chatId: '8880001', name: 'bots' } },
          { platform: 'telegram', displayName: 'Hermes', homeChannel: { chatId: pseudonym, name: '[erased]' } },
        ],
      });
      expect(a.metadata.erasureId).toBe(erased.body.erasureId);
      // The same pseudonym in every gateway's registration of her chat.
      expect(d.data).toMatchObject({ platforms: [{ platform: 'telegram', homeChannel: { chatId: pseudonym, name: '[erased]' } }] });
      expect((await registration(gateway('g'))).data).toMatchObject({ platforms: [{ homeChannel: { chatId: group, name: 'Ops room' } }] });
      expect((await registration(gateway('t'), 'acme')).data).toMatchObject({
        platforms: [{ homeChannel: { chatId: alice.source.chatId, name: `DM with ${alice.marker}` } }],
      });
      // The registry the prompt reads: the pseudonym, not her chat, though her gateway's state was cached before.
      const after = await prompt();
      expect(after).toContain(`telegram: "[erased]" (ID: "${pseudonym}")`);
      expect(after).not.toContain(alice.source.chatId);
      expect(after).not.toContain(alice.marker);

      // Carol's conversation in the group: her own DM's home channel goes, the group's (everyone else's too) stays.
      const erasedCarol = await erase({ sessionKey: carolKey });
      expect(erasedCarol.status, erasedCarol.text).toBe(200);
      await caughtUp(head);
      expect(await traces([carol.source.userId, carol.marker])).toEqual([]);
      expect((await registration(gateway('c'))).data).toMatchObject({
        platforms: [{ homeChannel: { chatId: expect.stringMatching(/^erased-/), name: '[erased]' } }],
      });
      expect((await registration(gateway('g'))).data).toMatchObject({ platforms: [{ homeChannel: { chatId: group, name: 'Ops room' } }] });

      // The gateway's own configuration is out of reach: registering her chat again records it again, as new data.
      expect(await register(gateway('a'), [home(alice.source.chatId, 'Alice again')])).toMatchObject({ changed: true });
    });

    it("erases one tenant's conversation and leaves the same key of another tenant alone", async () => {
      const { marker, source } = person('t');
      const acme = await ok('POST', '/v1/sessions/resolve', { source }, ACME);
      const plain = await ok('POST', '/v1/sessions/resolve', { source });
      expect(acme.sessionKey).toBe(plain.sessionKey);
      await ok('POST', `/v1/sessions/${acme.sessionId}/turns`, { messages: [{ role: 'user', content: `acme ${marker}` }] }, ACME);
      await ok('POST', `/v1/sessions/${plain.sessionId}/turns`, { messages: [{ role: 'user', content: `default ${marker}` }] });

      expect((await erase({ sessionKey: acme.sessionKey, tenant: 'other' })).body.error.code).toBe('CONVERSATION_NOT_FOUND');
      const erased = await erase({ sessionKey: acme.sessionKey, tenant: 'acme' });
      expect(erased.status, erased.text).toBe(200);
      expect(erased.body).toMatchObject({ tenant: 'acme', sessionsDestroyed: 1 });
      await caughtUp(head);

      expect(await traces([`acme ${marker}`])).toEqual([]);
      expect((await traces([`default ${marker}`])).length).toBeGreaterThan(0);
      expect((await ok('GET', `/v1/sessions/${plain.sessionId}/transcript`)).messages[0].content).toBe(`default ${marker}`);
      expect((await ok('GET', `/v1/conversations/${enc(plain.sessionKey)}`)).sessionId).toBe(plain.sessionId);
      expect((await call('GET', `/v1/conversations/${enc(acme.sessionKey)}`, undefined, ACME)).status).toBe(404);
    });

    it("shows an erasure's record to its own tenant's readers only, on every route derived from the log", async () => {
      const { source } = person('r');
      const acme = await ok('POST', '/v1/sessions/resolve', { source }, ACME);
      await ok('POST', `/v1/sessions/${acme.sessionId}/turns`, { messages: [{ role: 'user', content: 'to be erased' }] }, ACME);
      const before = await ledger.service.lastPosition();
      const erased = await erase({ sessionKey: acme.sessionKey, tenant: 'acme' });
      expect(erased.status, erased.text).toBe(200);
      const acmeStreams: string[] = erased.body.streams;
      expect(acmeStreams.length).toBeGreaterThan(0);

      /** Everything a token's lifecycle stream sends from `from` on, up to a marker conversation the test opens after the erasure. */
      const streamed = async (token: string, start: { fromPosition?: number; lastEventId?: number }) => {
        const markerKey = (await ok('POST', '/v1/sessions/resolve', { source: person('m').source }, token === ACME ? ACME : WRITER)).sessionKey;
        const seen: ServerSentEvent[] = [];
        const query = start.fromPosition === undefined ? '' : `?fromPosition=${start.fromPosition}`;
        const read = await readServerSentEvents(`${ledger.service.url}/v1/events/stream${query}`, {
          headers: { authorization: `Bearer ${token}`, ...(start.lastEventId === undefined ? {} : { 'last-event-id': String(start.lastEventId) }) },
          count: 1,
          timeoutMs: 20_000,
          keep: (event) => {
            seen.push(event);
            return event.event === 'ConversationOpened' && JSON.parse(event.data).streamName.endsWith(markerKey);
          },
        });
        expect(read.status).toBe(200);
        expect(read.events.length, 'the marker conversation arrived').toBe(1);
        return seen.map((event) => JSON.parse(event.data) as { type: string; streamName: string; data: { tenant?: string | null; streams?: string[] } });
      };
      const mentionsAcme = (event: { streamName: string; data: unknown }) =>
        event.streamName.startsWith('acme~') || acmeStreams.some((name) => JSON.stringify(event.data).includes(name));

      // A default-tenant reader replaying the log (fromPosition) or resuming it (Last-Event-ID): nothing of acme's.
      for (const start of [{ fromPosition: 0 }, { fromPosition: before }, { lastEventId: before }]) {
        const events = await streamed(READER, start);
        expect(events.length).toBeGreaterThan(0);
        expect(events.filter(mentionsAcme), JSON.stringify(start)).toEqual([]);
        expect(events.filter((event) => event.streamName === ERASURE_LOG_STREAM && event.data.tenant !== null)).toEqual([]);
      }
      // Acme's own reader gets its own record, and only acme's events.
      const acmeEvents = await streamed(ACME, { fromPosition: before });
      expect(acmeEvents.filter((event) => event.streamName === ERASURE_LOG_STREAM).map((event) => [event.type, event.data.tenant])).toEqual([
        ['PersonalDataErased', 'acme'],
        ['PersonalDataErasureCompleted', 'acme'],
      ]);
      expect(acmeEvents.filter((event) => event.streamName !== ERASURE_LOG_STREAM && !event.streamName.startsWith('acme~'))).toEqual([]);
      // An admin sees every tenant's records.
      const adminEvents = await streamed(ADMIN, { fromPosition: before });
      expect(adminEvents.some((event) => event.type === 'PersonalDataErased' && event.data.tenant === 'acme')).toBe(true);

      // The stream index lists every tenant's streams: admin tokens only.
      for (const token of [READER, WRITER, ACME]) expect((await call('GET', '/v1/admin/streams', undefined, token)).status).toBe(403);
      expect((await call('GET', '/v1/admin/streams?limit=1000', undefined, ADMIN)).status).toBe(200);
      // A stream's events and a session's replayed state are addressed within the caller's tenant: acme's ids reach nothing elsewhere.
      const erasedSession = acmeStreams.find((name) => name.startsWith('acme~session-'))!.slice('acme~session-'.length);
      const erasedKey = acmeStreams.find((name) => name.startsWith('acme~conversation-'))!.slice('acme~conversation-'.length);
      for (const path of [
        `/v1/sessions/${erasedSession}/events`,
        `/v1/sessions/${erasedSession}/state?revision=0`,
        `/v1/conversations/${enc(erasedKey)}/events`,
      ]) {
        expect((await call('GET', path, undefined, READER)).status, path).toBe(404);
        expect((await call('GET', path, undefined, ACME)).status, path).toBe(200);
      }
    });
  },
  {
    env: {
      API_TOKEN: `ops:admin=${ADMIN},gateway:write=${WRITER},acme:write:acme=${ACME},reader:read=${READER}`,
      RUNTIME_WATCHDOG_INTERVAL_MS: '0',
      JOB_TICK_INTERVAL_MS: '0',
      SNAPSHOT_EVERY: '3',
    },
  },
);
