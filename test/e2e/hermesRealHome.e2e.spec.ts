// A Hermes home in the current Hermes formats, imported and exported back: every field Hermes writes comes back; real cron jobs import; CLI sessions get a home.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realIds, realJobsJson, realKeys, realSessionsJson, writeRealHermesHome } from '../support/hermesRealHome.js';
import { runLedgerCli } from '../support/ledgerCli.js';
import { freePort, type ProcessStorage, processStorage, ServiceProcess } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const enc = encodeURIComponent;
/** Hermes writes naive isoformat() times (read as UTC); the ledger writes ISO with Z: the same instant is the same value. */
const TIME_FIELDS = new Set(['created_at', 'updated_at', 'last_resume_marked_at']);
const instant = (value: unknown) => (typeof value === 'string' ? new Date(/(Z|[+-]\d\d:\d\d)$/.test(value) ? value : `${value}Z`).getTime() : value);

/** Every field of the original, at any depth, with the value it had (objects' key order aside, as in Python): what differs. */
function lostFields(original: Record<string, unknown>, exported: Record<string, unknown> | undefined, path: string): string[] {
  if (!exported) return [`${path}: missing`];
  const lost: string[] = [];
  for (const [key, value] of Object.entries(original)) {
    const there = exported[key];
    if (!(key in exported)) lost.push(`${path}.${key}: missing (was ${JSON.stringify(value)})`);
    else if (key === 'origin' && value && typeof value === 'object')
      lost.push(...lostFields(value as Record<string, unknown>, there as Record<string, unknown>, `${path}.origin`));
    else if (TIME_FIELDS.has(key) ? instant(value) !== instant(there) : !isDeepStrictEqual(value, there)) {
      lost.push(`${path}.${key}: ${JSON.stringify(value)} came back as ${JSON.stringify(there)}`);
    }
  }
  return lost;
}

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

for (const backend of e2eBackends()) {
  describe(`import of a real Hermes home: ${backend}`, () => {
    let home: string;
    let storage: ProcessStorage;
    let service: ServiceProcess;
    let report: any;
    const get = (path: string) => getJson(`${service.url}${path}`);

    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'hermes-real-'));
      await writeRealHermesHome(home);
      storage = processStorage(backend, 'hermesreal');
      const imported = await runLedgerCli(storage.env, ['import', 'hermes', home]);
      expect(imported.code, imported.stderr).toBe(0);
      report = JSON.parse(imported.stdout);
      service = new ServiceProcess(await freePort(), { ...storage.env, JOB_TICK_INTERVAL_MS: '0', RESUME_FRESHNESS_SECONDS: '999999999' });
      await service.start();
    }, 180_000);
    afterAll(async () => {
      await service?.kill('SIGTERM');
      await storage?.dispose();
      await rm(home, { recursive: true, force: true });
    });

    it('exports sessions.json back with every field Hermes wrote, as Hermes wrote it', async () => {
      const exported = await get(`/v1/export/sessions.json?minPosition=${report.position}`);
      expect(exported.status).toBe(200);
      const lost = Object.entries(realSessionsJson).flatMap(([key, original]) => lostFields(original, exported.body[key], key));
      expect(lost).toEqual([]);
      // The one entry Hermes had not: the CLI sessions' home.
      expect(Object.keys(exported.body).sort()).toEqual([...Object.keys(realSessionsJson), realKeys.cli].sort());
    });

    it('keeps the display name Hermes set, and a null one null', async () => {
      expect((await get(`/v1/conversations/${enc(realKeys.dana)}`)).body).toMatchObject({
        displayName: 'Dana (work)',
        sessionId: realIds.dana,
        resumePending: true,
      });
      expect((await get(`/v1/conversations/${enc(realKeys.team)}`)).body).toMatchObject({ displayName: null, suspended: true });
    });

    it('gives CLI sessions a home: a conversation in the list, the newest current, the next message starting afresh', async () => {
      const cli = await get(`/v1/conversations/${enc(realKeys.cli)}`);
      expect(cli.status).toBe(200);
      expect(cli.body).toMatchObject({ sessionId: realIds.cli, sessionIds: [realIds.cliOld, realIds.cli], origin: { platform: 'cli', chatType: 'dm' } });
      const listed = await get(`/v1/sessions?platform=cli&minPosition=${report.position}`);
      expect(listed.status).toBe(200);
      expect(listed.body.sessions.map((entry: { sessionKey: string }) => entry.sessionKey)).toContain(realKeys.cli);
      expect((await get(`/v1/sessions/${realIds.cliOld}/transcript`)).body.messages).toHaveLength(2);
      expect((await get(`/v1/sessions/${realIds.cli}`)).body).toMatchObject({ status: 'ended', sessionKey: realKeys.cli });
      const resolved = await fetch(`${service.url}/v1/sessions/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ source: { platform: 'cli', chatType: 'dm' } }),
      });
      const body = (await resolved.json()) as { sessionKey: string; sessionId: string };
      expect(body.sessionKey).toBe(realKeys.cli);
      expect(body.sessionId).not.toBe(realIds.cli);
    });

    it("imports Hermes' cron jobs: schedule objects, deliver targets, skills, repeats left and paused jobs", async () => {
      expect(report.jobs.refused).toEqual([
        { job: 'f6a1b2c3d4e5', code: 'VALIDATION_FAILED', message: expect.stringContaining('a job needs a prompt or a skill') },
      ]);
      expect([...report.jobs.imported].sort()).toEqual(
        realJobsJson.jobs
          .map((job) => job.id)
          .filter((id) => id !== 'f6a1b2c3d4e5')
          .sort(),
      );
      const job = async (id: string) => (await get(`/v1/jobs/${id}?minPosition=${report.position}`)).body;
      expect(await job('a1b2c3d4e5f6')).toMatchObject({
        schedule: '0 8 * * *',
        scheduleKind: 'cron',
        prompt: 'Summarise the overnight news',
        deliverTo: { platform: 'telegram', chatId: '5551' },
        origin: { chatName: 'Dana' },
        repeat: { times: null },
        enabled: true,
      });
      expect(await job('b2c3d4e5f6a1')).toMatchObject({
        scheduleKind: 'interval',
        scheduleDefinition: { everyMs: 30 * 60_000 },
        skill: 'server-health',
        deliverTo: { platform: 'telegram', chatId: '-100200' },
        repeat: { times: 6 },
      });
      expect(await job('c3d4e5f6a1b2')).toMatchObject({
        scheduleKind: 'once',
        scheduleDefinition: { at: '2099-01-01T09:00:00.123Z' },
        deliverTo: null,
        repeat: { times: 1 },
      });
      expect(await job('d4e5f6a1b2c3')).toMatchObject({
        scheduleDefinition: { everyMs: 86_400_000 },
        enabled: false,
        deliverTo: { platform: 'discord', chatId: '4242' },
      });
      expect(await job('e5f6a1b2c3d4')).toMatchObject({ scheduleDefinition: { everyMs: 2 * 3_600_000 } });
    });

    it('says that a folder does not exist, or is a file, rather than that it holds nothing', { timeout: 120_000 }, async () => {
      const missing = await runLedgerCli(storage.env, ['import', 'hermes', join(home, 'no-such-folder')]);
      expect(missing.code).toBe(2);
      expect(JSON.parse(missing.stderr).error).toMatchObject({ code: 'HERMES_HOME_NOT_FOUND', message: expect.stringContaining('does not exist') });
      const file = join(home, 'a-file');
      await writeFile(file, 'x');
      const notFolder = await runLedgerCli(storage.env, ['import', 'hermes', file]);
      expect(JSON.parse(notFolder.stderr).error).toMatchObject({ code: 'HERMES_HOME_NOT_FOUND', message: expect.stringContaining('is not a folder') });
    });
  });
}
