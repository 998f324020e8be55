// `session-ledger import hermes <home>` on a Hermes home the test writes: conversations, transcripts, flags and jobs carry over; a re-run adds nothing.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hermesIds, hermesKeys, writeHermesHome } from '../support/hermesFixture.js';
import { runLedgerCli } from '../support/ledgerCli.js';
import { freePort, type ProcessStorage, processStorage, ServiceProcess } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const enc = encodeURIComponent;

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

for (const backend of e2eBackends()) {
  describe(`import hermes: ${backend}`, () => {
    let home: string;
    let storage: ProcessStorage;
    let service: ServiceProcess;
    let firstRun: any;
    const get = (path: string) => getJson(`${service.url}${path}`);
    const post = (path: string, body: object) =>
      getJson(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'hermes-home-'));
      await writeHermesHome(home);
      storage = processStorage(backend, 'hermes');
      const imported = await runLedgerCli(storage.env, ['import', 'hermes', home]);
      expect(imported.code, imported.stderr).toBe(0);
      firstRun = JSON.parse(imported.stdout);
      // The fixture's resume mark is months old: a freshness window that long keeps it live for the continuity check.
      service = new ServiceProcess(await freePort(), { ...storage.env, JOB_TICK_INTERVAL_MS: '0', RESUME_FRESHNESS_SECONDS: '999999999' });
      await service.start();
    }, 180_000);
    afterAll(async () => {
      await service?.kill('SIGTERM');
      await storage?.dispose();
      await rm(home, { recursive: true, force: true });
    });

    it('reports what it imported, what it left out and why', () => {
      expect(firstRun).toMatchObject({
        dryRun: false,
        nothingNew: false,
        conversations: { alreadyThere: [], rekeyed: [] },
        sessions: { imported: 5, alreadyThere: 0 },
        turns: 6,
        messages: 15,
        jobs: { alreadyThere: [], refused: [{ job: 'broken', code: 'INVALID_SCHEDULE' }] },
      });
      // The CLI session has no routing entry: it gets a conversation of its own.
      expect([...firstRun.conversations.imported].sort()).toEqual([hermesKeys.alice, hermesKeys.bob, hermesKeys.carol, 'agent:main:cli:dm'].sort());
      expect(firstRun.jobs.imported).toHaveLength(4);
      expect(firstRun.jobs.imported).toEqual(expect.arrayContaining(['daily-news-summary', 'weekly-code-review', 'health-check']));
      expect(firstRun.jobs.imported.find((id: string) => id.startsWith('hermes-'))).toMatch(/^hermes-[0-9a-f]{12}$/);
      const reasons = firstRun.leftOut.map((item: { item: string; reason: string }) => `${item.item}: ${item.reason}`);
      expect(reasons).toEqual(
        expect.arrayContaining([
          `session ${hermesIds.badId}: its id is not 1-128 of A-Z a-z 0-9 _ . -`,
          `session ${hermesIds.aliceOld}: 1 message(s) rewound away in Hermes (active = 0)`,
          `session ${hermesIds.alice}: 1 message(s) with role "session_meta"`,
        ]),
      );
      expect(firstRun.position).toBeGreaterThan(0);
    });

    it("keeps each conversation's routing entry, flags, counters and session history", async () => {
      const alice = await get(`/v1/conversations/${enc(hermesKeys.alice)}`);
      expect(alice.status).toBe(200);
      expect(alice.body).toMatchObject({
        sessionId: hermesIds.alice,
        sessionIds: [hermesIds.aliceOld, hermesIds.alice],
        displayName: 'Alice',
        origin: { platform: 'telegram', chatId: '12345', userId: '12345', userName: 'Alice' },
        resumePending: true,
        resumeReason: 'restart_timeout',
        lastResumeMarkedAt: '2026-03-01T09:31:00.000Z',
        suspended: false,
        inputTokens: 120,
        outputTokens: 40,
        cacheReadTokens: 10,
        totalTokens: 170,
        estimatedCostUsd: 0.0123,
        lastPromptTokens: 96,
        gatewayId: 'hermes-import',
      });
      const bob = await get(`/v1/conversations/${enc(hermesKeys.bob)}`);
      expect(bob.body).toMatchObject({ sessionId: hermesIds.bob, suspended: true, chatType: 'group' });

      const exported = await get(`/v1/export/sessions.json?minPosition=${firstRun.position}`);
      expect(exported.body[hermesKeys.alice]).toMatchObject({
        session_id: hermesIds.alice,
        input_tokens: 120,
        last_prompt_tokens: 96,
        resume_pending: true,
        updated_at: '2026-03-01T09:30:00.250Z',
        last_resume_marked_at: '2026-03-01T09:31:00.000Z',
      });
      expect(Object.keys(exported.body).sort()).toEqual([hermesKeys.alice, hermesKeys.bob, hermesKeys.carol, 'agent:main:cli:dm'].sort());
    });

    it('keeps every transcript: turns from user messages, tool calls, ended sessions', async () => {
      const old = await get(`/v1/sessions/${hermesIds.aliceOld}/transcript`);
      expect(old.body.messages.map((message: { role: string; content: unknown }) => [message.role, message.content])).toEqual([
        ['system', 'You are a helpful assistant.'],
        ['user', 'hello'],
        ['assistant', 'hi Alice'],
        ['user', 'what is 2+2'],
        ['assistant', '4'],
      ]);
      expect(old.body.messages[2].metadata).toMatchObject({ at: '2026-02-28T08:00:02.000Z', tokenCount: 3 });
      // Ended as Hermes recorded it: its end time (five minutes before the next session started) and reason.
      expect((await get(`/v1/sessions/${hermesIds.aliceOld}`)).body).toMatchObject({
        status: 'ended',
        endReason: 'reset',
        endedAt: '2026-03-01T08:55:00.000Z',
        turnCount: 2,
      });

      const current = await get(`/v1/sessions/${hermesIds.alice}/transcript`);
      expect(current.body.messages).toMatchObject([
        { role: 'user', content: 'weather?', turnIndex: 1 },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', function: { name: 'weather' } }] },
        { role: 'tool', content: 'sunny', toolCallId: 'call_1', name: 'weather' },
        { role: 'assistant', content: 'It is sunny.' },
      ]);
      expect((await get(`/v1/sessions/${hermesIds.alice}`)).body).toMatchObject({ status: 'active', turnCount: 1, counters: { inputTokens: 120 } });

      const cli = await get(`/v1/sessions/${hermesIds.cli}`);
      expect(cli.body).toMatchObject({
        status: 'ended',
        endReason: 'superseded',
        origin: { platform: 'cli' },
        metadata: { importedFrom: 'hermes', hermesSource: 'cli', hermesEndReason: 'cli_close' },
      });
      expect((await get(`/v1/sessions/${hermesIds.cli}/transcript`)).body.messages).toHaveLength(2);
    });

    it('lets the next message of each chat carry on where Hermes left off', async () => {
      const alice = await post('/v1/sessions/resolve', { source: { platform: 'telegram', chatType: 'dm', chatId: 12345, userId: 12345, userName: 'Alice' } });
      expect(alice.body).toMatchObject({ sessionKey: hermesKeys.alice, sessionId: hermesIds.alice, created: false, state: 'resumed' });
      const turn = await post(`/v1/sessions/${hermesIds.alice}/turns`, {
        messages: [
          { role: 'user', content: 'and tomorrow?' },
          { role: 'assistant', content: 'rain' },
        ],
      });
      expect(turn.body).toMatchObject({ turnIndex: 2 });
      // Ids with ':' are keyed the ledger's way, so the resolve finds Carol's imported conversation.
      const carol = await post('/v1/sessions/resolve', { source: { platform: 'slack', chatType: 'dm', chatId: 'D:42', userId: 'U42' } });
      expect(carol.body).toMatchObject({ sessionKey: hermesKeys.carol, sessionId: hermesIds.carol, created: false });
      // Suspended in Hermes: the next message starts a new session, as Hermes' own get_or_create_session would.
      const bob = await post('/v1/sessions/resolve', { source: { platform: 'discord', chatType: 'group', chatId: '998877', userId: '42' } });
      expect(bob.body.sessionKey).toBe(hermesKeys.bob);
      expect(bob.body.sessionId).not.toBe(hermesIds.bob);
      expect(bob.body.entry).toMatchObject({ wasAutoReset: true, autoResetReason: 'suspended', resetHadActivity: true });
      // /resume to the older session works: it is one of the conversation's sessions.
      const switched = await post(`/v1/conversations/${enc(hermesKeys.alice)}/switch`, { sessionId: hermesIds.aliceOld });
      expect(switched.body).toMatchObject({ sessionId: hermesIds.aliceOld, changed: true });
    });

    it('imports the cron jobs through the jobs module, refusing the one that does not parse', async () => {
      const jobs = await get(`/v1/jobs?minPosition=${firstRun.position}&limit=50`);
      const byId = new Map(jobs.body.jobs.map((job: { id: string }) => [job.id, job]));
      expect(byId.get('daily-news-summary')).toMatchObject({
        skill: 'ai-news-summarizer',
        schedule: '0 8 * * *',
        deliverTo: { platform: 'telegram', chatId: '-1001234567890' },
      });
      const unnamed = jobs.body.jobs.find((job: { id: string }) => job.id.startsWith('hermes-'));
      expect(unnamed).toMatchObject({ prompt: 'check the inbox', deliverTo: { chatId: '12345' } });
      expect(byId.has('broken')).toBe(false);
    });

    it('imports nothing twice: a re-run finds everything there and says so', { timeout: 180_000 }, async () => {
      const before = await get(`/v1/conversations/${enc(hermesKeys.alice)}/events?limit=500`);
      const transcriptBefore = await get(`/v1/sessions/${hermesIds.aliceOld}/transcript`);
      if (backend === 'pglite') await service.kill('SIGTERM');
      const again = await runLedgerCli(storage.env, ['import', 'hermes', home]);
      expect(again.code, again.stderr).toBe(0);
      const report = JSON.parse(again.stdout);
      expect(report).toMatchObject({
        nothingNew: true,
        position: 0,
        sessions: { imported: 0, alreadyThere: 5 },
        turns: 0,
        messages: 0,
        conversations: { imported: [] },
      });
      expect(report.conversations.alreadyThere).toHaveLength(4);
      expect(report.jobs.alreadyThere).toHaveLength(4);
      expect(again.stderr).toContain('nothing new');
      if (backend === 'pglite') await service.start();
      expect((await get(`/v1/conversations/${enc(hermesKeys.alice)}/events?limit=500`)).body.events).toEqual(before.body.events);
      expect((await get(`/v1/sessions/${hermesIds.aliceOld}/transcript`)).body).toEqual(transcriptBefore.body);
    });

    it("imports into a tenant: only that tenant's tokens see it", { timeout: 180_000 }, async () => {
      const tenantStorage = processStorage(backend, 'hermestenant');
      const acme = 'acme-secret-0123456789abcdef';
      const ops = 'ops-secret-0123456789abcdef';
      const tenantService = new ServiceProcess(await freePort(), {
        ...tenantStorage.env,
        JOB_TICK_INTERVAL_MS: '0',
        API_TOKEN: `ops:admin=${ops},acme:write:acme=${acme}`,
      });
      try {
        const imported = await runLedgerCli(tenantStorage.env, ['import', 'hermes', home, '--tenant', 'acme']);
        expect(imported.code, imported.stderr).toBe(0);
        expect(JSON.parse(imported.stdout)).toMatchObject({ sessions: { imported: 5 }, jobs: { alreadyThere: [] } });
        await tenantService.start();
        const as = (token: string, path: string) => getJson(`${tenantService.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        expect((await as(acme, `/v1/conversations/${enc(hermesKeys.alice)}`)).body).toMatchObject({ sessionId: hermesIds.alice });
        expect((await as(acme, `/v1/jobs/daily-news-summary`)).status).toBe(200);
        expect((await as(ops, `/v1/conversations/${enc(hermesKeys.alice)}`)).status).toBe(404);
        expect((await as(ops, `/v1/sessions/${hermesIds.alice}`)).status).toBe(404);
      } finally {
        await tenantService.kill('SIGTERM');
        await tenantStorage.dispose();
      }
    });

    it("imports a home copied while Hermes ran: the write-ahead log's rows, and the legacy sessions/<id>.jsonl transcripts", { timeout: 180_000 }, async () => {
      const copied = join(import.meta.dirname, '..', 'fixtures', 'hermes-wal-home');
      const walStorage = processStorage(backend, 'hermeswal');
      try {
        const run = await runLedgerCli(walStorage.env, ['import', 'hermes', copied]);
        expect(run.code, run.stderr).toBe(0);
        const report = JSON.parse(run.stdout);
        expect(report.files).toMatchObject({
          stateDbWal: join(copied, 'state.db-wal'),
          jsonlTranscripts: [join(copied, 'sessions', '20260305_090000_wa100001.jsonl'), join(copied, 'sessions', '20260305_100000_wa100003.jsonl')],
        });
        // state.db alone holds 1 session and 2 messages; its log 6 messages more and a second session; one JSONL 4 of
        // its own, the other a copy of the first session's 6 and 1 more (older Hermes wrote every message to both).
        expect(report).toMatchObject({ sessions: { imported: 3 }, messages: 13 });
        const reasons = report.leftOut.map((item: { item: string; reason: string }) => `${item.item}: ${item.reason}`);
        expect(reasons).toEqual(
          expect.arrayContaining([
            `transcript ${join(copied, 'sessions', '20260305_100000_wa100003.jsonl')}: line(s) 5 are not a JSON object`,
            `transcript ${join(copied, 'sessions', '20260305_110000_wa1orphn.jsonl')}: no session 20260305_110000_wa1orphn in state.db or sessions.json to attach its 1 message(s) to`,
          ]),
        );
        const texts = async (sessionId: string) => {
          const replayed = await runLedgerCli(walStorage.env, ['replay', '--session', sessionId]);
          expect(replayed.code, replayed.stderr).toBe(0);
          return JSON.stringify(JSON.parse(replayed.stdout));
        };
        expect(await texts('20260305_093000_wa100002')).toContain('a session only the wal knows');
        const early = await texts('20260305_090000_wa100001');
        expect(early).toContain('only in the older copy');
        expect(early.split('wal answer 2').length).toBe(2);
        const legacy = await texts('20260305_100000_wa100003');
        expect(legacy).toContain('written to the jsonl fallback');
        expect(legacy.indexOf('a line with no timestamp')).toBeLessThan(legacy.indexOf('still in order'));

        // A later Hermes home whose key the ledger has by now: its session is imported unbound, and the report says
        // so with the switch that binds it.
        const later = await mkdtemp(join(tmpdir(), 'hermes-later-'));
        try {
          const key = 'agent:main:telegram:dm:5550001';
          const entry = { session_key: key, session_id: '20260306_090000_wa200001', updated_at: '2026-03-06T09:00:00', platform: 'telegram', chat_type: 'dm' };
          await mkdir(join(later, 'sessions'));
          await writeFile(
            join(later, 'sessions', 'sessions.json'),
            JSON.stringify({ [key]: { ...entry, origin: { platform: 'telegram', chat_id: '5550001', chat_type: 'dm' } } }),
          );
          await writeFile(join(later, 'sessions', '20260306_090000_wa200001.jsonl'), `${JSON.stringify({ role: 'user', content: 'a day later' })}\n`);
          const second = await runLedgerCli(walStorage.env, ['import', 'hermes', later]);
          expect(second.code, second.stderr).toBe(0);
          const secondReport = JSON.parse(second.stdout);
          expect(secondReport).toMatchObject({ conversations: { imported: [], alreadyThere: [key] }, sessions: { imported: 1 } });
          expect(secondReport.leftOut).toContainEqual({
            item: `conversation ${key}`,
            reason: expect.stringContaining(
              `were imported without being bound to it; to carry on in Hermes' current session, POST /v1/conversations/${enc(key)}/switch {"sessionId": "20260306_090000_wa200001"}`,
            ),
          });
        } finally {
          await rm(later, { recursive: true, force: true });
        }
      } finally {
        await walStorage.dispose();
      }
    });

    it('plans without writing on --dry-run, and refuses what it cannot read', { timeout: 180_000 }, async () => {
      const fresh = processStorage(backend, 'hermesdry');
      try {
        const dry = await runLedgerCli(fresh.env, ['import', 'hermes', home, '--dry-run']);
        expect(dry.code, dry.stderr).toBe(0);
        const dryReport = JSON.parse(dry.stdout);
        expect(dryReport).toMatchObject({ dryRun: true, sessions: { imported: 5 }, conversations: { alreadyThere: [] }, position: 0 });
        // The jobs are decided as the run decides them: the same imported, the same refused with the same codes.
        const decided = (report: any) => ({
          imported: [...report.jobs.imported].sort(),
          refused: report.jobs.refused.map(({ job, code }: { job: string; code: string }) => `${job}: ${code}`).sort(),
        });
        expect(decided(dryReport)).toEqual(decided(firstRun));
        const again = await runLedgerCli(fresh.env, ['import', 'hermes', home, '--dry-run']);
        expect(JSON.parse(again.stdout)).toMatchObject({ sessions: { imported: 5, alreadyThere: 0 } });

        const empty = await mkdtemp(join(tmpdir(), 'hermes-empty-'));
        const nothing = await runLedgerCli(fresh.env, ['import', 'hermes', empty]);
        expect(nothing.code).toBe(2);
        expect(JSON.parse(nothing.stderr).error.code).toBe('HERMES_HOME_EMPTY');
        await rm(empty, { recursive: true, force: true });
        expect((await runLedgerCli(fresh.env, ['import', 'openclaw', home])).code).toBe(2);
        expect((await runLedgerCli(fresh.env, ['import', 'hermes'])).code).toBe(2);
        expect((await runLedgerCli(fresh.env, ['import', 'hermes', home, '--tenant', 'Not A Tenant'])).code).toBe(2);
      } finally {
        await fresh.dispose();
      }
    });
  });
}
