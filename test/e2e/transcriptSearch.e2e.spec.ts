// Full-text search over transcripts through HTTP: query syntax, Chinese text, filters, pages, sessions, the timeline, tenants, erasure, rebuilds.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { JsonObject, LedgerClient, MessageInput, SearchQuery } from '../../src/client/index.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

const SECRETS = {
  ops: `ops-${randomBytes(8).toString('hex')}`,
  acme: `acme-${randomBytes(8).toString('hex')}`,
  globex: `globex-${randomBytes(8).toString('hex')}`,
};
const API_TOKEN = [`ops:admin=${SECRETS.ops}`, `acme-bot:write:acme=${SECRETS.acme}`, `globex-bot:write:globex=${SECRETS.globex}`].join(',');

forEachBackend(
  'transcript search',
  (ledger) => {
    let chat = 0;
    /** A word no other test writes. */
    const word = (label: string) => `${label}${randomBytes(5).toString('hex')}`;
    const clients = new Map<string, LedgerClient>();
    /** The client of a token, one for the whole block. */
    const as = (token = SECRETS.ops) => {
      if (!clients.has(token)) clients.set(token, ledger.newClient({ token }));
      return clients.get(token)!;
    };
    const newSession = (token = SECRETS.ops, platform = 'telegram') =>
      as(token).resolveSession({ source: sourceOn(platform, `search-${ledger.backend}-${++chat}`, { userId: `u${chat}` }) });
    const turn = (sessionId: string, user: string, assistant: string, token = SECRETS.ops) =>
      as(token).recordTurn(sessionId, {
        messages: [
          { role: 'user', content: [{ type: 'text', text: user }] },
          { role: 'assistant', content: assistant },
        ],
      });
    /** Every write made so far, whichever client made it: a search waits for the index to reach it. */
    const everyWrite = async () => ({ minPosition: await ledger.service.lastPosition() });
    /** A search that sees every write made so far. */
    const search = async (query: SearchQuery & { groupBy?: undefined }, token = SECRETS.ops) => as(token).search(query, await everyWrite());
    const found = async (query: SearchQuery & { groupBy?: undefined }, token = SECRETS.ops) => (await search(query, token)).hits.map((hit) => hit.snippet);

    it('finds words, "quoted phrases", -excluded words and OR, with the session, turn, message, role and time of each hit and its words marked', async () => {
      const topic = word('topic');
      const { sessionId, sessionKey } = await newSession();
      await turn(sessionId, `What did we decide about the ${topic} database last week?`, `We decided the ${topic} store moves to PostgreSQL.`);
      await turn(sessionId, `Remind me of the ${topic} budget`, `The ${topic} budget is fixed.`);

      const all = await search({ q: topic });
      expect(all.hits).toHaveLength(4);
      const first = all.hits.find((hit) => hit.snippet.includes('database'))!;
      expect(first).toMatchObject({
        sessionId,
        sessionKey,
        platform: 'telegram',
        turnIndex: 1,
        messageIndex: 0,
        role: 'user',
        deleted: false,
        rolledBack: false,
      });
      expect(first.snippet).toBe(`What did we decide about the >>>${topic}<<< database last week?`);
      expect(first.snippetParts).toEqual([
        { text: 'What did we decide about the ', match: false },
        { text: topic, match: true },
        { text: ' database last week?', match: false },
      ]);
      expect(Date.parse(first.at)).not.toBeNaN();
      expect(first.rank).toBeGreaterThan(0);
      // Best rank first.
      expect(all.hits.map((hit) => hit.rank)).toEqual([...all.hits.map((hit) => hit.rank)].sort((a, b) => b - a));

      expect(await found({ q: `${topic} POSTGRESQL` })).toEqual([`We decided the >>>${topic}<<< store moves to >>>PostgreSQL<<<.`]);
      expect(await found({ q: `"${topic} budget" -fixed` })).toEqual([`Remind me of the >>>${topic}<<< >>>budget<<<`]);
      expect(await found({ q: `"budget ${topic}"` })).toEqual([]);
      expect((await found({ q: `${topic} database OR budget` })).length).toBe(3);
      expect(await found({ q: `${topic} role`, role: 'assistant' })).toEqual([]);
      expect((await search({ q: topic, role: 'assistant' })).hits.map((hit) => hit.role)).toEqual(['assistant', 'assistant']);
    });

    it('finds Chinese words inside unspaced sentences, phrases across scripts, and nothing for characters that are not adjacent', async () => {
      const tag = word('zh');
      const { sessionId } = await newSession(SECRETS.ops, 'feishu');
      await turn(sessionId, `${tag} 我们上周决定把数据库迁移到PostgreSQL吗？`, `${tag} 是的，我们决定使用PostgreSQL作为主数据库。`);

      const decided = await search({ q: `${tag} 决定` });
      expect(decided.hits).toHaveLength(2);
      expect(decided.hits.map((hit) => hit.snippet).sort()).toEqual([
        `>>>${tag}<<< 我们上周>>>决定<<<把数据库迁移到PostgreSQL吗？`,
        `>>>${tag}<<< 是的，我们>>>决定<<<使用PostgreSQL作为主数据库。`,
      ]);
      expect(await found({ q: `${tag} 决定使用postgresql` })).toEqual([`>>>${tag}<<< 是的，我们>>>决定使用<<<>>>PostgreSQL<<<作为主数据库。`]);
      expect(await found({ q: `${tag} 主数据库` })).toHaveLength(1);
      expect(await found({ q: `${tag} 数据库 -迁移` })).toHaveLength(1);
      // 决 and 用 are both there, never side by side.
      expect(await found({ q: `${tag} 决用` })).toEqual([]);
      expect(await found({ q: `${tag} 决定`, platform: 'telegram' })).toEqual([]);
      expect(await found({ q: `${tag} 决定`, platform: 'feishu', sessionId })).toHaveLength(2);
    });

    it('filters by session key, session id and time, pages with a cursor, and groups hits by session', async () => {
      const topic = word('paged');
      const sessions = [await newSession(), await newSession(), await newSession()];
      for (const [index, { sessionId }] of sessions.entries()) {
        for (let count = 0; count <= index; count++) await turn(sessionId, `${topic} question ${count}`, `${topic} answer ${count}`);
      }
      expect((await search({ q: topic, sessionKey: sessions[1]!.sessionKey })).hits.map((hit) => hit.sessionId)).toEqual(Array(4).fill(sessions[1]!.sessionId));
      expect((await search({ q: topic, sessionId: sessions[2]!.sessionId })).hits).toHaveLength(6);
      expect((await search({ q: topic, until: '2000-01-01T00:00:00Z' })).hits).toEqual([]);
      expect((await search({ q: topic, since: '2000-01-01T00:00:00Z' })).hits).toHaveLength(12);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof search>> = await search({ q: topic, limit: 5, ...(cursor ? { cursor } : {}) });
        expect(page.hits.length).toBeLessThanOrEqual(5);
        seen.push(...page.hits.map((hit) => `${hit.sessionId}/${hit.messageIndex}`));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toHaveLength(12);
      expect(new Set(seen).size).toBe(12);

      const grouped = await as().search({ q: topic, groupBy: 'session', hitsPerSession: 2, limit: 2 }, await everyWrite());
      expect(grouped.sessions).toHaveLength(2);
      for (const session of grouped.sessions) {
        expect(session.hits.length).toBeLessThanOrEqual(2);
        expect(session.hits.every((hit) => hit.sessionId === session.sessionId)).toBe(true);
        expect(session).toMatchObject({ sessionKey: expect.any(String), platform: 'telegram', rank: session.hits[0]!.rank, lastAt: expect.any(String) });
      }
      const rest = await as().search({ q: topic, groupBy: 'session', limit: 2, cursor: grouped.nextCursor! }, await everyWrite());
      expect(rest.sessions).toHaveLength(1);
      expect(rest.nextCursor).toBeNull();
      const counts = [...grouped.sessions, ...rest.sessions].map((session): [string, number] => [session.sessionId, session.hitCount]);
      expect(new Map(counts)).toEqual(new Map(sessions.map(({ sessionId }, index): [string, number] => [sessionId, 2 * (index + 1)])));
    });

    it('finds rewound, rewritten-away and destroyed-session messages only with includeDeleted, and a timeline a rollback left only with includeRolledBack', async () => {
      const kept = word('kept');
      const rewound = word('rewound');
      const rolled = word('rolled');
      const { sessionId } = await newSession();
      const one = await turn(sessionId, `${kept} first question`, `${kept} first answer`);
      await turn(sessionId, `${rewound} second question`, 'second answer');
      await as().rewind(sessionId, { turns: 1 });
      expect(await found({ q: rewound })).toEqual([]);
      expect((await search({ q: rewound, includeDeleted: true })).hits.map((hit) => [hit.deleted, hit.messageIndex])).toEqual([[true, 2]]);

      await turn(sessionId, `${rolled} third question`, 'third answer');
      await as().rollback(sessionId, one.checkpointId!);
      // The turn after the rollback takes the indexes the rolled-back one had.
      await turn(sessionId, `${rolled} again`, 'fourth answer');
      expect((await search({ q: rolled })).hits.map((hit) => [hit.snippet, hit.messageIndex])).toEqual([[`>>>${rolled}<<< again`, 2]]);
      const withLeft = await search({ q: rolled, includeRolledBack: true });
      expect(withLeft.hits.map((hit) => [hit.messageIndex, hit.rolledBack]).sort()).toEqual([
        [2, false],
        [4, true],
      ]);
      // The rewound message was on the timeline the rollback left, too.
      expect((await search({ q: rewound, includeDeleted: true, includeRolledBack: true })).hits.map((hit) => [hit.deleted, hit.rolledBack])).toEqual([
        [true, true],
      ]);
      expect((await search({ q: rewound, includeDeleted: true })).hits).toEqual([]);

      const rewritten = word('rewritten');
      const summary = word('summary');
      await turn(sessionId, `${rewritten} long talk`, 'ok');
      await as().rewriteTranscript(sessionId, { messages: [{ role: 'system', content: `${summary} of everything so far` }] });
      expect(await found({ q: rewritten })).toEqual([]);
      expect(await found({ q: kept })).toEqual([]);
      expect(await found({ q: summary })).toEqual([`>>>${summary}<<< of everything so far`]);
      expect((await search({ q: kept, includeDeleted: true })).hits).toHaveLength(2);

      // A fork starts with its parent's transcript; destroying it hides its messages.
      const fork = await as().forkSession(sessionId);
      expect((await search({ q: summary })).hits.map((hit) => hit.sessionId).sort()).toEqual([sessionId, fork.sessionId].sort());
      await as().destroySession(fork.sessionId);
      expect((await search({ q: summary })).hits.map((hit) => hit.sessionId)).toEqual([sessionId]);
      const destroyed = await search({ q: summary, includeDeleted: true });
      expect(destroyed.hits.find((hit) => hit.sessionId === fork.sessionId)).toMatchObject({ sessionDestroyed: true, deleted: false });
    });

    it("finds the items of item histories in the frameworks' shapes, follows pops, clears and rollbacks, and tells items from messages", async () => {
      const topic = word('item');
      const created = await as().putAgentSession(`search-${ledger.backend}`, word('thread'));
      expect(created.created).toBe(true);
      const { sessionId } = created;
      const items: JsonObject[] = [
        // OpenAI Agents SDK input items: a message with parts, a tool call (not prose), its output.
        { id: 'm1', role: 'user', content: [{ type: 'input_text', text: `${topic} question in parts` }] },
        { id: 'c1', type: 'function_call', name: 'lookup', arguments: `{"q":"${topic} in arguments"}`, callId: 'call_1' },
        { id: 'o1', type: 'function_call_output', callId: 'call_1', output: `${topic} tool output` },
        // ADK and Gemini: content with parts and a role.
        { id: 'e1', author: 'agent', content: { role: 'model', parts: [{ text: `${topic} gemini answer` }] } },
        // A Claude Code transcript entry: the text is in its message.
        { id: 'u1', type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: `${topic} claude answer` }] } },
      ];
      await as().appendItems(sessionId, { items });
      const hits = (await search({ q: topic, source: 'items' })).hits.sort((a, b) => a.messageIndex - b.messageIndex);
      expect(hits.map((hit) => [hit.itemId, hit.messageIndex, hit.role, hit.turnIndex, hit.slot, hit.platform, hit.sessionId])).toEqual([
        ['m1', 0, 'user', null, null, 'agent', sessionId],
        ['o1', 2, 'function_call_output', null, null, 'agent', sessionId],
        ['e1', 3, 'model', null, null, 'agent', sessionId],
        ['u1', 4, 'assistant', null, null, 'agent', sessionId],
      ]);
      expect(hits[0]!.snippet).toBe(`>>>${topic}<<< question in parts`);
      expect((await search({ q: topic, role: 'model' })).hits.map((hit) => hit.itemId)).toEqual(['e1']);
      expect((await search({ q: topic, source: 'transcript' })).hits).toEqual([]);

      // A gateway session's transcript and item history are both searched; `source` tells them apart.
      const gateway = await newSession();
      await turn(gateway.sessionId, `${topic} in a turn`, 'ok');
      await as().appendItems(gateway.sessionId, { items: [{ id: 'g1', text: `${topic} in an item` }] });
      const both = (await search({ q: topic, sessionId: gateway.sessionId })).hits;
      expect(both.map((hit) => hit.itemId).sort()).toEqual(['g1', null]);
      expect((await search({ q: topic, sessionId: gateway.sessionId, source: 'transcript' })).hits.map((hit) => [hit.itemId, hit.turnIndex])).toEqual([
        [null, 1],
      ]);

      // A checkpoint, then a pop and a clear: removed items are found only with includeDeleted.
      const checkpoint = await as().createCheckpoint(sessionId, { label: 'five items' });
      await as().popItem(sessionId);
      expect((await search({ q: topic, source: 'items', sessionId })).hits.map((hit) => hit.itemId).sort()).toEqual(['e1', 'm1', 'o1']);
      const later = word('later');
      await as().appendItems(sessionId, { items: [{ id: 'late', role: 'user', content: `${later} ${topic}` }] });
      await as().clearItems(sessionId);
      expect((await search({ q: topic, source: 'items', sessionId })).hits).toEqual([]);
      const removed = await search({ q: topic, source: 'items', sessionId, includeDeleted: true });
      expect(removed.hits.map((hit) => [hit.itemId, hit.deleted]).sort()).toEqual([
        ['e1', true],
        ['late', true],
        ['m1', true],
        ['o1', true],
        ['u1', true],
      ]);

      // The rollback puts the history back as it was at the checkpoint: the popped and cleared items come back, the
      // one appended after it leaves the timeline; an item appended after the rollback takes the place it had.
      await as().rollback(sessionId, checkpoint.checkpointId);
      expect((await search({ q: topic, source: 'items', sessionId })).hits.map((hit) => hit.itemId).sort()).toEqual(['e1', 'm1', 'o1', 'u1']);
      expect(await found({ q: later })).toEqual([]);
      expect((await search({ q: later, includeRolledBack: true, includeDeleted: true })).hits.map((hit) => [hit.itemId, hit.rolledBack])).toEqual([
        ['late', true],
      ]);
      await as().appendItems(sessionId, { items: [{ id: 'again', role: 'user', content: `${later} again` }] });
      expect((await search({ q: later })).hits.map((hit) => [hit.itemId, hit.messageIndex])).toEqual([['again', 5]]);

      // Rebuilt from the log, the index answers the same.
      const everything = { q: topic, includeDeleted: true, includeRolledBack: true };
      const before = await search(everything);
      await as().rebuildProjection('transcript-search');
      expect(await search(everything)).toEqual(before);

      // Another tenant does not find them.
      expect(await found({ q: topic }, SECRETS.acme)).toEqual([]);
    });

    it('answers the typed client, hits and sessions alike', async () => {
      const client = ledger.newClient({ token: SECRETS.acme });
      const { sessionId } = await client.resolveSession({ source: sourceOn('discord', `client-${ledger.backend}`, { userId: 'c1' }) });
      const topic = word('client');
      await client.recordTurn(sessionId, { messages: [{ role: 'user', content: `${topic} from the typed client` }] });
      // The client waits for its own writes (X-Min-Position) without being asked.
      const hits = await client.search({ q: topic, role: 'user' });
      expect(hits.hits.map((hit) => [hit.sessionId, hit.snippet])).toEqual([[sessionId, `>>>${topic}<<< from the typed client`]]);
      const sessions = await client.search({ q: topic, groupBy: 'session', hitsPerSession: 1 });
      expect(sessions.sessions.map((session) => [session.sessionId, session.hitCount, session.hits.length])).toEqual([[sessionId, 1, 1]]);
    });

    it("keeps each tenant's search to its own transcripts", async () => {
      const shared = word('shared');
      const acme = await newSession(SECRETS.acme);
      const globex = await newSession(SECRETS.globex);
      await turn(acme.sessionId, `${shared} acme plans`, 'noted', SECRETS.acme);
      await turn(globex.sessionId, `${shared} globex plans`, 'noted', SECRETS.globex);
      expect(await found({ q: shared }, SECRETS.acme)).toEqual([`>>>${shared}<<< acme plans`]);
      expect(await found({ q: shared }, SECRETS.globex)).toEqual([`>>>${shared}<<< globex plans`]);
      expect(await found({ q: shared, sessionId: globex.sessionId }, SECRETS.acme)).toEqual([]);
      expect(await found({ q: shared })).toEqual([]);
    });

    it('answers the same after a rebuild, and never finds erased words again', async () => {
      const secret = word('secret');
      const other = word('other');
      const person = await newSession();
      const bystander = await newSession();
      const one = await turn(person.sessionId, `my ${secret} is 1234`, `noted your ${secret}`);
      await turn(person.sessionId, `${secret} again`, 'ok');
      await as().rollback(person.sessionId, one.checkpointId!);
      await turn(bystander.sessionId, `${other} ${secret} mentioned by someone else`, 'ok');
      const everything = { q: secret, includeDeleted: true, includeRolledBack: true };
      const before = await search(everything);
      expect(before.hits.map((hit) => hit.rolledBack).sort()).toEqual([false, false, false, true]);

      await as().rebuildProjection('transcript-search');
      expect(await search(everything)).toEqual(before);

      const erased = await as().eraseConversation({ sessionKey: person.sessionKey });
      expect(erased.projectionsRebuilt).toContain('transcript-search');
      expect((await search(everything)).hits.map((hit) => hit.sessionId)).toEqual([bystander.sessionId]);
      expect(await found({ q: '1234', includeDeleted: true, includeRolledBack: true })).toEqual([]);
      expect(await found({ q: other })).toHaveLength(1);
    });

    it("keeps the planner's statistics of the messages it indexes (PGlite has no autovacuum), and finds the same with them", async () => {
      const rare = word('rare');
      const { sessionId } = await newSession();
      // 1,000 messages: what the projection writes before its first ANALYZE.
      const messages = Array.from({ length: 1_000 }, (_, index): MessageInput => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `filler number ${index}`,
      }));
      messages[500] = { role: 'user', content: `the ${rare} one` };
      await as().recordTurn(sessionId, { messages });
      expect(await found({ q: rare })).toEqual([`the >>>${rare}<<< one`]);
      const [statistics] = await ledger.service.infrastructure.readModels.query(
        `SELECT count(*)::int AS columns FROM pg_stats WHERE schemaname = $1 AND tablename = 'search_messages'`,
        [ledger.service.config.readModelSchema],
      );
      expect(statistics.columns).toBeGreaterThan(0);
      expect(await found({ q: rare })).toEqual([`the >>>${rare}<<< one`]);
    });

    it('refuses bad searches with 400 and a code, and reads any punctuation as text', async () => {
      // Raw: query strings as written, most of which the typed client never sends.
      const call = (method: string, path: string) => ledger.service.request(method, path, { headers: { authorization: `Bearer ${SECRETS.ops}` } });
      const refused = async (query: string, code: string) => {
        const response = await call('GET', `/v1/search?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body.error.code, query).toBe(code);
      };
      await refused('', 'VALIDATION_FAILED');
      await refused('q=%20%20', 'VALIDATION_FAILED');
      await refused(`q=${'a'.repeat(501)}`, 'VALIDATION_FAILED');
      await refused('q=-only', 'SEARCH_QUERY_HAS_NO_TERMS');
      await refused('q=%21%40%23%20%26%7C', 'SEARCH_QUERY_HAS_NO_TERMS');
      await refused('q=-%22', 'SEARCH_QUERY_HAS_NO_TERMS');
      await refused('q=x&role=two%20words', 'VALIDATION_FAILED');
      await refused('q=x&source=both', 'VALIDATION_FAILED');
      await refused('q=x&limit=0', 'VALIDATION_FAILED');
      await refused('q=x&since=yesterday', 'VALIDATION_FAILED');
      await refused('q=x&since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'VALIDATION_FAILED');
      await refused('q=x&cursor=not-ours', 'INVALID_CURSOR');
      // Dates the database cannot hold: year 0, or past 9999 once the offset is applied.
      for (const date of ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59-23:59', '0001-01-01T00:00:00%2B01:00']) {
        await refused(`q=x&since=${date}`, 'VALIDATION_FAILED');
        await refused(`q=x&until=${date}`, 'VALIDATION_FAILED');
      }
      expect((await call('GET', '/v1/search?q=x&since=0001-01-01T00:00:00Z&until=9999-12-31T23:59:59Z')).status).toBe(200);
      await refused('q=x&groupBy=turn', 'VALIDATION_FAILED');
      await refused('q=x&unknown=1', 'VALIDATION_FAILED');
      for (const q of ['"unclosed phrase', "it's (a) <-> b & !c | d:* ''", 'or OR - term', 'x\\"y\\\\', 'a-b_c.d/e@f']) {
        const response = await call('GET', `/v1/search?q=${encodeURIComponent(q)}`);
        expect(response.status, `${q}: ${response.text}`).toBe(200);
      }
    });
  },
  { env: { API_TOKEN, JOB_TICK_INTERVAL_MS: '0' } },
);
