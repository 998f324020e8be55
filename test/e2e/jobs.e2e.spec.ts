// Scheduled jobs over real HTTP: CRUD, jobs.json import, the 20-way fire race, pause/resume/reschedule, run reports, SSE resume, signed webhooks, restart catch-up.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerApiError, type CreateJobRequest, type LedgerClient } from '../../src/client/index.js';
import { ManualClock } from '../../src/clock.js';
import { JobFiresStreamController } from '../../src/modules/jobs/delivery/jobFiresStreamController.js';
import { JobTicker } from '../../src/modules/jobs/jobTicker.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { apiErrorOf, forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { readServerSentEvents } from '../support/serverSentEvents.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = 'jobs-e2e-token-0123456789';
const SECRET = 'jobs-webhook-secret-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** Hermes' documented jobs.json, verbatim. */
const seedJobsJson = {
  jobs: [
    {
      id: 'daily-news-summary',
      schedule: '0 8 * * *',
      description: '每天早上 8 点抓取 AI 行业新闻并生成摘要',
      skill: 'ai-news-summarizer',
      deliver_to: { platform: 'telegram', chat_id: '-1001234567890' },
    },
    {
      id: 'weekly-code-review',
      schedule: '0 10 * * 1',
      description: '每周一早上 10 点审查项目代码变更',
      skill: 'code-review-assistant',
      deliver_to: { platform: 'discord', chat_id: '123456789' },
    },
    {
      id: 'health-check',
      schedule: '*/30 * * * *',
      description: '每 30 分钟检查服务器健康状态',
      skill: 'server-health-checker',
      deliver_to: { platform: 'telegram', chat_id: '123456789' },
    },
  ],
};

interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  answered: number;
}

/** A real HTTP receiver on 127.0.0.1 that checks signatures and can fail the first attempt of chosen jobs. */
async function startWebhookReceiver(failFirstAttemptOf: Set<string>) {
  const received: ReceivedWebhook[] = [];
  const failed = new Set<string>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      const parsed = JSON.parse(body) as { jobId: string; fireId: string };
      let status = request.headers['x-ledger-signature'] === expected ? 204 : 401;
      if (status === 204 && failFirstAttemptOf.has(parsed.jobId) && !failed.has(parsed.fireId)) {
        failed.add(parsed.fireId);
        status = 500;
      }
      received.push({ headers: request.headers, body, answered: status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks/fires`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Polls until `check` holds or about five seconds passed; returns its last answer. */
async function eventually<T>(probe: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await probe();
  }
  return value;
}

// A Monday; the tests only ever move it forward.
const clockOf = clockPerBackend(new Date('2026-01-05T07:58:00.000Z'));
// Each backend's service delivers to a receiver of its own, listening before the service starts.
const receivers = new Map(
  await Promise.all(
    backendsUnderTest().map(async (backend) => {
      const failFirstAttemptOf = new Set<string>();
      return [backend, { failFirstAttemptOf, receiver: await startWebhookReceiver(failFirstAttemptOf) }] as const;
    }),
  ),
);

/** A call's answer, or the refusal it ended in, for the races that expect both. */
const outcomeOf = <T>(call: Promise<T>): Promise<{ body?: T; refusal?: { status: number; code: string } }> =>
  call.then(
    (body) => ({ body }),
    (error: unknown) => {
      if (error instanceof LedgerApiError) return { refusal: { status: error.status, code: error.code } };
      throw error;
    },
  );

forEachBackend(
  'jobs',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    const { failFirstAttemptOf, receiver } = receivers.get(ledger.backend)!;
    let client: LedgerClient;
    let ticker: JobTicker;
    const createJob = (job: CreateJobRequest) => client.createJob(job);
    const jobEvents = async (jobId: string) => ledger.service.infrastructure.eventStore.readStream(`job-${jobId}`);
    const firedSlots = async (jobId: string) => (await jobEvents(jobId)).filter((event) => event.type === 'JobFired').map((event) => event.data.slot as string);

    beforeAll(() => {
      client = ledger.newClient({ token: TOKEN });
      ticker = ledger.service.app.get(JobTicker);
    });
    afterAll(async () => {
      await receiver.close();
    });

    it('creates, reads, lists (with filters and cursor) and removes jobs', async () => {
      const created = await createJob({
        prompt: 'Summarise overnight alerts',
        schedule: '*/30 * * * *',
        deliverTo: { platform: 'slack', chatId: 'C042', threadId: '1700000000.1' },
        origin: { platform: 'slack', chatId: 'C042', userId: 'U1' },
        model: 'claude-sonnet',
        repeat: { times: 3 },
      });
      expect(created.id).toMatch(/^job_[0-9a-f]{12}$/);
      expect(created).toMatchObject({
        name: 'Summarise overnight alerts',
        schedule: '*/30 * * * *',
        scheduleKind: 'cron',
        timeZone: 'UTC',
        deliverTo: { platform: 'slack', chatId: 'C042', threadId: '1700000000.1' },
        origin: { platform: 'slack', chatId: 'C042', userId: 'U1', chatName: null },
        model: 'claude-sonnet',
        repeat: { times: 3, completed: 0 },
        enabled: true,
        state: 'scheduled',
        nextRunAt: '2026-01-05T08:00:00.000Z',
        lastRunAt: null,
        lastStatus: null,
        lastError: null,
      });
      // The job's route answers 200 and nothing else when it succeeds.
      expect(await client.getJob(created.id)).toMatchObject({ id: created.id, recentFires: [], revision: 0 });

      const paused = await createJob({ id: 'paused-one', skill: 'noop', schedule: 'every 2h', enabled: false });
      expect(paused).toMatchObject({
        id: 'paused-one',
        name: 'paused-one',
        enabled: false,
        state: 'paused',
        nextRunAt: null,
        schedule: 'every 2h',
        scheduleKind: 'interval',
      });

      const listed = await client.listJobs({}, { minPosition: paused.position });
      const ids = listed.jobs.map((job) => job.id);
      expect(ids).toEqual(expect.arrayContaining([created.id, 'paused-one']));
      expect([...ids].sort()).toEqual(ids);
      const disabled = await client.listJobs({ enabled: false });
      expect(disabled.jobs.map((job) => job.id)).toContain('paused-one');
      expect(disabled.jobs.every((job) => !job.enabled)).toBe(true);
      const first = await client.listJobs({ limit: 1 });
      expect(first.jobs).toHaveLength(1);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await client.listJobs({ limit: 1, cursor: first.nextCursor! });
      expect(second.jobs[0]!.id > first.jobs[0]!.id).toBe(true);
      expect((await refusalOf(client.listJobs({ cursor: '!!' }))).code).toBe('INVALID_CURSOR');
      // Well-formed, but not a cursor this service handed out: a job id no job can have, a member it never writes.
      for (const forged of [{ after: 'no spaces allowed' }, { after: 'daily', offset: 1 }, 'daily']) {
        const cursor = Buffer.from(JSON.stringify(forged)).toString('base64url');
        expect((await refusalOf(client.listJobs({ cursor }))).code).toBe('INVALID_CURSOR');
      }

      // The delete route answers 200 and nothing else when it succeeds.
      const removed = await client.deleteJob(created.id);
      expect(removed).toMatchObject({ id: created.id, removed: true });
      expect((await refusalOf(client.getJob(created.id))).code).toBe('JOB_NOT_FOUND');
      expect((await refusalOf(client.deleteJob(created.id))).status).toBe(404);
      // A patch is checked before the job is looked for: a malformed one of a removed job is refused as malformed.
      expect((await refusalOf(client.updateJob(created.id, { timeZone: 'Nowhere/Land' }))).code).toBe('INVALID_TIME_ZONE');
      expect((await refusalOf(client.updateJob(created.id, { schedule: 'every 10s' }))).code).toBe('INVALID_SCHEDULE');
      expect((await refusalOf(client.updateJob(created.id, { enabled: false }))).code).toBe('JOB_NOT_FOUND');
      const after = await client.listJobs({ limit: 500 }, { minPosition: removed.position });
      expect(after.jobs.map((job) => job.id)).not.toContain(created.id);
    });

    it('refuses invalid jobs at the edge', async () => {
      const expectError = async (job: CreateJobRequest, status: number, code: string) => {
        expect(await refusalOf(client.createJob(job))).toEqual({ status, code });
      };
      await expectError({ schedule: '0 8 * * *' }, 400, 'VALIDATION_FAILED');
      await expectError({ skill: 'x', schedule: '0 25 * * *' }, 400, 'INVALID_SCHEDULE');
      await expectError({ skill: 'x', schedule: '2026-01-05T07:55:00Z' }, 400, 'SCHEDULE_IN_PAST');
      await expectError({ skill: 'x', schedule: '0 8 * * *', timeZone: 'Europe/Atlantis' }, 400, 'INVALID_TIME_ZONE');
      await expectError({ skill: 'x', schedule: 'every 10s' }, 400, 'INVALID_SCHEDULE');
      // An unknown field: a body the typed client never sends.
      const surprise = await ledger.service.request('POST', '/v1/jobs', { body: { skill: 'x', schedule: '0 8 * * *', surprise: true }, headers: auth });
      expect([surprise.status, surprise.body.error.code], surprise.text).toEqual([400, 'VALIDATION_FAILED']);
      await createJob({ id: 'taken', skill: 'x', schedule: '0 8 * * *' });
      await expectError({ id: 'taken', skill: 'x', schedule: '0 9 * * *' }, 409, 'JOB_EXISTS');
      // The forEachBackend client holds no token.
      expect((await refusalOf(ledger.client.createJob({ skill: 'x', schedule: '0 8 * * *' }))).status).toBe(401);
    });

    it("imports Hermes' jobs.json, once", async () => {
      // The import route answers 200 and nothing else when it succeeds.
      const imported = await client.importJobs(seedJobsJson);
      expect(imported.created.map((job) => job.id)).toEqual(['daily-news-summary', 'weekly-code-review', 'health-check']);
      expect(imported.existing).toEqual([]);
      const news = await client.getJob('daily-news-summary');
      expect(news).toMatchObject({
        name: 'daily-news-summary',
        description: '每天早上 8 点抓取 AI 行业新闻并生成摘要',
        skill: 'ai-news-summarizer',
        prompt: null,
        schedule: '0 8 * * *',
        timeZone: 'UTC',
        deliverTo: { platform: 'telegram', chatId: '-1001234567890', threadId: null },
        nextRunAt: '2026-01-05T08:00:00.000Z',
      });
      const weekly = await client.getJob('weekly-code-review');
      expect(weekly.nextRunAt).toBe('2026-01-05T10:00:00.000Z');
      const again = await client.importJobs(seedJobsJson);
      expect(again).toMatchObject({ created: [], existing: ['daily-news-summary', 'weekly-code-review', 'health-check'] });

      const broken = await refusalOf(
        client.importJobs({
          jobs: [
            { id: 'fine-one', schedule: '0 8 * * *', skill: 'x' },
            { id: 'bad-one', schedule: 'often', skill: 'x' },
          ],
        }),
      );
      expect(broken.status).toBe(400);
      expect((await refusalOf(client.getJob('fine-one'))).status).toBe(404);
      const missingSchedule = await apiErrorOf(client.importJobs({ jobs: [{ id: 'no-schedule', skill: 'x' }] }));
      expect(missingSchedule.status).toBe(400);
      expect(missingSchedule.details).toMatchObject([{ path: 'jobs.0.schedule' }]);
      const twice = await refusalOf(
        client.importJobs({
          jobs: [
            { id: 'dup', schedule: '0 8 * * *', skill: 'x' },
            { id: 'dup', schedule: '0 9 * * *', skill: 'x' },
          ],
        }),
      );
      expect(twice.code).toBe('DUPLICATE_JOB_ID');
    });

    it('lets exactly one of 20 concurrent fires of a slot win; the 19 others get 409 ALREADY_FIRED', async () => {
      const job = await createJob({ skill: 'race', schedule: '0 9 * * *' });
      clock.set(new Date('2026-01-05T09:00:00.000Z'));
      // A fire answers 200 and nothing else when it succeeds.
      const responses = await Promise.all(Array.from({ length: 20 }, () => outcomeOf(client.fireJob(job.id, { slot: '2026-01-05T09:00:00Z' }))));
      const winners = responses.filter((response) => response.body);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.body).toMatchObject({
        jobId: job.id,
        fireId: 'fire_20260105T090000Z',
        slot: '2026-01-05T09:00:00.000Z',
        nextRunAt: '2026-01-06T09:00:00.000Z',
        completed: false,
      });
      const losers = responses.filter((response) => response.refusal);
      expect(losers).toHaveLength(19);
      expect(losers.every((response) => response.refusal!.status === 409 && response.refusal!.code === 'ALREADY_FIRED')).toBe(true);
      expect(await firedSlots(job.id)).toEqual(['2026-01-05T09:00:00.000Z']);
      // The ticker, running now, finds nothing due: the winner already advanced nextRunAt.
      await ticker.tick();
      expect(await firedSlots(job.id)).toHaveLength(1);
    });

    it('lets exactly one fire win when the ticker and external fires race for the same slot', async () => {
      const job = await createJob({ skill: 'race-ticker', schedule: '5 9 * * *' });
      await client.listJobs({}, { minPosition: job.position });
      clock.set(new Date('2026-01-05T09:05:00.000Z'));
      const external = Array.from({ length: 10 }, () => outcomeOf(client.fireJob(job.id, { slot: '2026-01-05T09:05:00Z' })));
      const ticks = [ticker.tick(), ticker.tick()];
      const responses = await Promise.all(external);
      await Promise.all(ticks);
      expect(await firedSlots(job.id)).toEqual(['2026-01-05T09:05:00.000Z']);
      expect(responses.filter((response) => response.body).length).toBeLessThanOrEqual(1);
      expect(responses.filter((response) => response.refusal).every((response) => response.refusal!.code === 'ALREADY_FIRED')).toBe(true);
    });

    it('fires due jobs from the ticker with an injected clock, and completes one-shots', async () => {
      clock.set(new Date('2026-01-05T09:10:00.000Z'));
      const recurring = await createJob({ prompt: 'every quarter hour', schedule: '*/15 * * * *' });
      const oneShot = await createJob({ prompt: 'remind me', schedule: 'in 45m' });
      expect(oneShot).toMatchObject({ scheduleKind: 'once', schedule: '2026-01-05T09:55:00.000Z', nextRunAt: '2026-01-05T09:55:00.000Z' });
      await client.listJobs({}, { minPosition: oneShot.position });
      expect(await firedSlots(recurring.id)).toEqual([]);
      clock.set(new Date('2026-01-05T09:15:01.000Z'));
      await ticker.tick();
      expect(await firedSlots(recurring.id)).toEqual(['2026-01-05T09:15:00.000Z']);
      await ticker.tick();
      expect(await firedSlots(recurring.id)).toHaveLength(1);
      clock.set(new Date('2026-01-05T09:55:00.000Z'));
      await eventually(
        () => ticker.tick().then(() => firedSlots(oneShot.id)),
        (slots) => slots.length === 1,
      );
      expect(await firedSlots(oneShot.id)).toEqual(['2026-01-05T09:55:00.000Z']);
      const done = await client.getJob(oneShot.id);
      expect(done).toMatchObject({ state: 'completed', enabled: false, nextRunAt: null, lastRunAt: '2026-01-05T09:55:00.000Z', repeat: { completed: 1 } });
      expect(done.recentFires).toEqual([expect.objectContaining({ fireId: 'fire_20260105T095500Z', trigger: 'ticker', status: 'pending' })]);
      const refused = await refusalOf(client.fireJob(oneShot.id, { slot: '2026-01-05T09:55:00Z' }));
      expect(refused.code).toBe('ALREADY_FIRED');
    });

    it('pauses, resumes and reschedules with PATCH', async () => {
      clock.set(new Date('2026-01-05T10:00:00.000Z'));
      const job = await createJob({ skill: 'patchable', schedule: '*/10 * * * *' });
      // The PATCH route answers 200 and nothing else when it succeeds.
      const paused = await client.updateJob(job.id, { enabled: false });
      expect(paused).toMatchObject({ enabled: false, state: 'paused', nextRunAt: null, changed: true });
      expect((await refusalOf(client.fireJob(job.id, { slot: '2026-01-05T10:10:00Z' }))).code).toBe('JOB_PAUSED');
      expect((await client.updateJob(job.id, { enabled: false })).changed).toBe(false);

      clock.set(new Date('2026-01-05T10:35:00.000Z'));
      await client.listJobs({}, { minPosition: paused.position });
      await ticker.tick();
      expect(await firedSlots(job.id)).toEqual([]);
      const resumed = await client.updateJob(job.id, { enabled: true });
      expect(resumed).toMatchObject({ enabled: true, state: 'scheduled', nextRunAt: '2026-01-05T10:40:00.000Z' });

      const rescheduled = await client.updateJob(job.id, { schedule: 'every 2h', name: 'renamed' });
      expect(rescheduled).toMatchObject({ name: 'renamed', schedule: 'every 2h', scheduleKind: 'interval', nextRunAt: '2026-01-05T12:35:00.000Z' });
      const zoned = await client.updateJob(job.id, { schedule: '0 8 * * 1-5', timeZone: 'America/New_York' });
      // 08:00 EST is 13:00 UTC, still ahead today.
      expect(zoned).toMatchObject({ timeZone: 'America/New_York', nextRunAt: '2026-01-05T13:00:00.000Z' });
      const kinds = (await jobEvents(job.id)).map((event) => event.type);
      expect(kinds).toEqual(['JobScheduled', 'JobPaused', 'JobResumed', 'JobUpdated', 'JobRescheduled', 'JobRescheduled']);

      expect((await refusalOf(client.updateJob(job.id, {}))).status).toBe(400);
      expect((await refusalOf(client.updateJob(job.id, { timeZone: 'Nowhere/Land' }))).code).toBe('INVALID_TIME_ZONE');
      expect((await refusalOf(client.updateJob(job.id, { skill: null }))).code).toBe('JOB_NEEDS_PROMPT_OR_SKILL');
      expect((await refusalOf(client.updateJob('no-such-job', { enabled: true }))).status).toBe(404);
    });

    it("records the gateway's run reports", async () => {
      clock.set(new Date('2026-01-05T10:59:00.000Z'));
      const job = await createJob({ skill: 'reported', schedule: '0 11 * * *' });
      clock.set(new Date('2026-01-05T11:00:00.000Z'));
      // A fire and a run report each answer 200 and nothing else when they succeed.
      const fire = await client.fireJob(job.id, {});
      expect(fire.slot).toBe('2026-01-05T11:00:00.000Z');
      const report = await client.reportRun(job.id, fire.fireId, { status: 'error', error: 'model timed out' });
      expect(report).toMatchObject({
        changed: true,
        fire: { fireId: fire.fireId, status: 'error', error: 'model timed out' },
        job: { lastStatus: 'error', lastError: 'model timed out' },
      });
      const repeated = await client.reportRun(job.id, fire.fireId, { status: 'error', error: 'model timed out' });
      expect(repeated.changed).toBe(false);
      expect(await refusalOf(client.reportRun(job.id, fire.fireId, { status: 'ok' }))).toEqual({ status: 409, code: 'RUN_ALREADY_REPORTED' });
      const unknown = await refusalOf(client.reportRun(job.id, 'fire_20200101T000000Z', { status: 'ok' }));
      expect(unknown.code).toBe('FIRE_NOT_FOUND');
      // A status that is no run status: a body the typed client never sends.
      const done = await ledger.service.request('POST', `/v1/jobs/${job.id}/runs/${fire.fireId}`, { body: { status: 'done' }, headers: auth });
      expect(done.status).toBe(400);
      expect(await client.getJob(job.id)).toMatchObject({ lastStatus: 'error', lastError: 'model timed out' });
    });

    it('streams fires as server-sent events, resumable from a position, behind the bearer token', async () => {
      clock.set(new Date('2026-01-05T12:00:00.000Z'));
      const job = await createJob({ skill: 'streamed', schedule: '* * * * *' });
      const positions: number[] = [];
      for (const minute of ['12:01', '12:02', '12:03']) {
        clock.set(new Date(`2026-01-05T${minute}:00.000Z`));
        const fire = await client.fireJob(job.id, { slot: `2026-01-05T${minute}:00Z` });
        positions.push(fire.position);
      }
      const ours = (event: { event?: string; data: string }) => event.event === 'job.fired' && JSON.parse(event.data).jobId === job.id;
      const resumed = await readServerSentEvents(`${ledger.service.url}/v1/jobs/fires/stream`, {
        headers: { ...auth, 'Last-Event-ID': String(positions[0]) },
        count: 2,
        timeoutMs: 5_000,
        keep: ours,
      });
      expect(resumed.status).toBe(200);
      expect(resumed.contentType).toMatch(/^text\/event-stream/);
      expect(resumed.events.map((event) => Number(event.id))).toEqual(positions.slice(1));
      expect(JSON.parse(resumed.events[0]!.data)).toMatchObject({
        jobId: job.id,
        fireId: 'fire_20260105T120200Z',
        slot: '2026-01-05T12:02:00.000Z',
        task: { skill: 'streamed' },
        position: positions[1],
      });

      const fromQuery = await readServerSentEvents(`${ledger.service.url}/v1/jobs/fires/stream?from=${positions[1]}`, {
        headers: auth,
        count: 1,
        timeoutMs: 5_000,
        keep: ours,
      });
      expect(fromQuery.events.map((event) => Number(event.id))).toEqual([positions[2]]);

      // A live fire reaches a stream that started at the head.
      const live = readServerSentEvents(`${ledger.service.url}/v1/jobs/fires/stream`, { headers: auth, count: 1, timeoutMs: 5_000, keep: ours });
      await new Promise((resolve) => setTimeout(resolve, 100));
      clock.set(new Date('2026-01-05T12:04:00.000Z'));
      const fourth = await client.fireJob(job.id, { slot: '2026-01-05T12:04:00Z' });
      expect((await live).events.map((event) => Number(event.id))).toEqual([fourth.position]);

      const anonymous = await readServerSentEvents(`${ledger.service.url}/v1/jobs/fires/stream`, { count: 1, timeoutMs: 2_000 });
      expect(anonymous.status).toBe(401);
      const badId = await readServerSentEvents(`${ledger.service.url}/v1/jobs/fires/stream`, {
        headers: { ...auth, 'Last-Event-ID': 'yesterday' },
        count: 1,
        timeoutMs: 2_000,
      });
      expect(badId.status).toBe(400);
      // Every client above has hung up: their subscriptions are stopped.
      const streams = ledger.service.app.get(JobFiresStreamController);
      expect(
        await eventually(
          async () => streams.openStreams,
          (open) => open === 0,
        ),
      ).toBe(0);
    });

    it('delivers fires to the webhook with an HMAC signature, retrying a failed delivery', async () => {
      clock.set(new Date('2026-01-05T12:59:00.000Z'));
      const job = await createJob({ skill: 'hooked', schedule: '0 13 * * *' });
      clock.set(new Date('2026-01-05T13:00:00.000Z'));
      failFirstAttemptOf.add(job.id);
      const fire = await client.fireJob(job.id, { slot: '2026-01-05T13:00:00Z' });
      const ours = () => receiver.received.filter((delivery) => JSON.parse(delivery.body).jobId === job.id);
      const deliveries = await eventually(
        async () => ours(),
        (list) => list.some((delivery) => delivery.answered === 204),
      );
      expect(deliveries.map((delivery) => delivery.answered)).toEqual([500, 204]);
      for (const delivery of deliveries) {
        expect(delivery.headers['x-ledger-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(delivery.body).digest('hex')}`);
        expect(delivery.headers['x-ledger-event']).toBe('job.fired');
        expect(delivery.headers['x-ledger-delivery']).toBe(String(fire.position));
        expect(JSON.parse(delivery.body)).toMatchObject({
          type: 'job.fired',
          jobId: job.id,
          fireId: fire.fireId,
          slot: '2026-01-05T13:00:00.000Z',
          task: { skill: 'hooked' },
        });
      }
    });
    it("resolves each fire's delivery as Hermes' cron does: deliverTo, else the origin chat, else a registered home channel", async () => {
      // Registering platforms and a fire each answer 200 and nothing else when they succeed.
      const registered = await client.gatewayPlatforms('gw-jobs', {
        platforms: [{ platform: 'telegram', homeChannel: { chatId: '-100777', name: 'Ops room' } }],
      });
      // A fire reads the live gateways from the stream index, a read model.
      expect(await ledger.service.infrastructure.projections.waitForPosition(['stream-index'], registered.position, 10_000)).toBe(true);
      const fireAt = async (job: { id: string }, slot: string) => {
        clock.set(new Date(slot));
        return (await client.fireJob(job.id, { slot })).delivery;
      };
      const homeless = await createJob({ prompt: 'digest', schedule: '0 10 * * *' });
      expect(await fireAt(homeless, '2026-01-06T10:00:00Z')).toEqual({ platform: 'telegram', chatId: '-100777', threadId: null, from: 'home_channel' });
      const fromChat = await createJob({ prompt: 'digest', schedule: '0 11 * * *', origin: { platform: 'slack', chatId: 'C9', threadId: '1.2' } });
      expect(await fireAt(fromChat, '2026-01-06T11:00:00Z')).toEqual({ platform: 'slack', chatId: 'C9', threadId: '1.2', from: 'origin' });
      const fired = (await jobEvents(homeless.id)).find((event) => event.type === 'JobFired');
      expect(fired?.data).toMatchObject({ task: { deliverTo: null }, delivery: { from: 'home_channel', chatId: '-100777' } });
      await client.gatewayPlatforms('gw-jobs', { platforms: [] });
    });

    it('rebuilds the jobs read model from position 0 to the same rows', async () => {
      const { service } = ledger;
      const { projections, readModels } = service.infrastructure;
      const rows = () => readModels.query(`SELECT * FROM "${service.config.readModelSchema}".jobs ORDER BY job_id`);
      const head = await service.lastPosition();
      expect(await projections.waitForPosition(['jobs'], head, 10_000)).toBe(true);
      const live = await rows();
      expect(live.length).toBeGreaterThan(10);
      // The rebuild route answers 202 and nothing else when it succeeds.
      await client.rebuildProjection('jobs');
      expect(await projections.waitForPosition(['jobs'], head, 10_000)).toBe(true);
      expect(await rows()).toEqual(live);
    });
  },
  (backend) => ({
    clock: clockOf(backend),
    env: {
      API_TOKEN: TOKEN,
      JOB_TICK_INTERVAL_MS: '0',
      JOBS_WEBHOOK_URL: receivers.get(backend)!.receiver.url,
      JOBS_WEBHOOK_SECRET: SECRET,
    },
  }),
);

for (const backend of e2eBackends()) {
  describe(`jobs catch-up after a restart: ${backend}`, () => {
    // Storage that outlives an app: fixed schemas, in one PGlite folder (initdb once; it is the slow part) or on PostgreSQL.
    const dataDir = backend === 'pglite' ? mkdtempSync(join(tmpdir(), 'ledger-jobs-')) : undefined;
    const schemas: string[] = [];
    afterAll(async () => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (backend === 'postgres' && schemas.length > 0) {
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await client.connect();
        for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}_es" CASCADE; DROP SCHEMA IF EXISTS "${schema}_rm" CASCADE`);
        await client.end();
      }
    });
    const durableApp = (schema: string, clock: ManualClock, env: Record<string, string>): Promise<TestApp> =>
      startTestApp(backend, { schema, keepSchema: true, clock, env: { ...(dataDir ? { DATA_DIR: dataDir } : {}), ...env } });

    for (const [catchUp, expected] of [
      ['once', ['2026-01-05T08:50:00.000Z']],
      ['all', ['2026-01-05T08:10:00.000Z', '2026-01-05T08:20:00.000Z', '2026-01-05T08:30:00.000Z', '2026-01-05T08:40:00.000Z', '2026-01-05T08:50:00.000Z']],
      ['none', []],
    ] as const) {
      it(`JOB_CATCH_UP=${catchUp}: the slots missed while down fire ${expected.length === 1 ? 'once' : `${expected.length} times`}, then the next slot is in the future`, async () => {
        const schema = uniqueSchema(`jobs_${catchUp}`);
        schemas.push(schema);
        const clock = new ManualClock(new Date('2026-01-05T08:00:00.000Z'));
        const before = await durableApp(schema, clock, { JOB_TICK_INTERVAL_MS: '0' });
        const created = await before.request('POST', '/v1/jobs', { body: { id: 'while-down', skill: 'catch-up', schedule: '*/10 * * * *' } });
        expect(created.body.nextRunAt).toBe('2026-01-05T08:10:00.000Z');
        await before.request('GET', `/v1/jobs?minPosition=${created.body.position}`);
        await before.close();

        clock.set(new Date('2026-01-05T08:55:00.000Z'));
        const after = await durableApp(schema, clock, { JOB_TICK_INTERVAL_MS: '30000', JOB_CATCH_UP: catchUp });
        try {
          await after.app.get(JobTicker).started();
          const events = await after.infrastructure.eventStore.readStream('job-while-down');
          expect(events.filter((event) => event.type === 'JobFired').map((event) => event.data.slot)).toEqual(expected);
          expect(events.filter((event) => event.type === 'JobFired').every((event) => event.data.trigger === 'ticker')).toBe(true);
          if (catchUp === 'none') expect(events.at(-1)).toMatchObject({ type: 'JobSlotsSkipped', data: { count: 5, lastSlot: '2026-01-05T08:50:00.000Z' } });
          if (catchUp === 'once') expect(events.at(-1)!.data).toMatchObject({ skippedSlots: 4, dueSince: '2026-01-05T08:10:00.000Z' });
          const job = await after.request('GET', '/v1/jobs/while-down');
          expect(job.body).toMatchObject({ nextRunAt: '2026-01-05T09:00:00.000Z', repeat: { completed: expected.length } });
          // A second tick at the same time fires nothing more: never a burst.
          await after.app.get(JobTicker).tick();
          expect((await after.infrastructure.eventStore.readStream('job-while-down')).length).toBe(events.length);
        } finally {
          await after.close();
        }
      }, 180_000); // two service starts on one data folder: slow on a loaded machine, and a timed-out run would leave the folder held
    }
  });
}
