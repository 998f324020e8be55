// An external scheduler owns the job timers (JOBS_SCHEDULER_URL): the reference scheduler under examples/ holds each job's
// next slot and calls back with a signed token; while it does not answer, the built-in ticker stands in; each slot fires once.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceScheduler } from '../../examples/reference-scheduler/referenceScheduler.js';
import type { FireJobRequest, LedgerClient } from '../../src/client/index.js';
import { ManualClock } from '../../src/clock.js';
import { JobTicker } from '../../src/modules/jobs/jobTicker.js';
import { SchedulerRegistrations } from '../../src/modules/jobs/scheduler/schedulerRegistrations.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const SECRET = 'callback-secret-of-at-least-32-characters';
const ADMIN = 'admin-token-0123456789';
const WRITER = 'writer-token-0123456789';
const ACME = 'acme-token-0123456789';
const API_TOKEN = `ops:admin=${ADMIN},gateway:write=${WRITER},acme-gateway:write:acme=${ACME}`;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A callback token as a scheduler would sign it; each option breaks one thing. */
async function callbackToken(claims: { sub: string; slot: string; tenant?: string }, options: { now: Date; lifetime?: number; age?: number; secret?: string }) {
  const issuedAt = Math.floor(options.now.getTime() / 1000) - (options.age ?? 0);
  return new SignJWT({ slot: claims.slot, ...(claims.tenant ? { tenant: claims.tenant } : {}) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (options.lifetime ?? 60))
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}

const clockOf = clockPerBackend(new Date('2026-01-05T08:30:00.000Z'));

/** Each backend's service calls a reference scheduler of its own, which a test stops and starts again on its port. */
interface SchedulerOf {
  scheduler: ReferenceScheduler;
  port: number;
  url: string;
}
async function startScheduler(clock: ManualClock, port = 0): Promise<SchedulerOf> {
  const scheduler = new ReferenceScheduler({ secret: SECRET, now: () => clock.now() });
  const url = await scheduler.listen(port);
  return { scheduler, port: Number(new URL(url).port), url };
}
// Listening before the services start: their JOBS_SCHEDULER_URL names it.
const schedulers = new Map(await Promise.all(backendsUnderTest().map(async (backend) => [backend, await startScheduler(clockOf(backend))] as const)));

forEachBackend(
  'jobs timed by an external scheduler',
  (ledger) => {
    const clock = clockOf(ledger.backend);
    const running = schedulers.get(ledger.backend)!;
    let scheduler = running.scheduler;
    const schedulerPort = running.port;
    let registrations: SchedulerRegistrations;
    let ticker: JobTicker;
    let admin: LedgerClient;

    const held = () => scheduler.registrations().map(({ jobId, slot, tenant }) => ({ jobId, slot, ...(tenant ? { tenant } : {}) }));
    const settled = () => registrations.idle();
    /** The ticker reads due jobs from the read model: let it apply every write first, so its counts are exact. */
    const tick = async () => {
      await admin.listJobs({}, { minPosition: await ledger.service.lastPosition() });
      return ticker.tick();
    };

    async function firedSlots(jobId: string, stream = `job-${jobId}`) {
      const events = await ledger.service.infrastructure.eventStore.readStream(stream);
      return events.filter((event) => event.type === 'JobFired').map((event) => ({ slot: event.data.slot as string, trigger: event.data.trigger as string }));
    }

    /** The scheduler back on its port, with nothing in memory. */
    const restartScheduler = async () => {
      scheduler = (await startScheduler(clock, schedulerPort)).scheduler;
    };

    beforeAll(() => {
      admin = ledger.newClient({ token: ADMIN });
      registrations = ledger.service.app.get(SchedulerRegistrations);
      ticker = ledger.service.app.get(JobTicker);
    });
    afterAll(async () => {
      await scheduler.close();
    });

    it('registers the next slot on create and after each fire, cancels on pause and delete, registers again on resume', async () => {
      // The create route answers 201 and nothing else when it succeeds.
      await admin.createJob({ id: 'hourly', skill: 'report', schedule: '0 * * * *' });
      await settled();
      expect(scheduler.registrations()).toMatchObject([
        { jobId: 'hourly', slot: '2026-01-05T09:00:00.000Z', callbackUrl: `${ledger.service.url}/v1/jobs/hourly/fire` },
      ]);

      // A change that leaves the slot where it was registers nothing new.
      await admin.updateJob('hourly', { name: 'Hourly report' });
      await settled();
      expect(held()).toEqual([{ jobId: 'hourly', slot: '2026-01-05T09:00:00.000Z' }]);

      clock.set(new Date('2026-01-05T09:00:00.000Z'));
      expect(await scheduler.runDue()).toEqual([{ jobId: 'hourly', slot: '2026-01-05T09:00:00.000Z', status: 200 }]);
      await settled();
      expect(held()).toEqual([{ jobId: 'hourly', slot: '2026-01-05T10:00:00.000Z' }]);
      expect(await firedSlots('hourly')).toEqual([{ slot: '2026-01-05T09:00:00.000Z', trigger: 'external' }]);
      const events = await ledger.service.infrastructure.eventStore.readStream('job-hourly');
      expect(events.find((event) => event.type === 'JobFired')!.metadata.actor).toBe('scheduler');

      await admin.updateJob('hourly', { enabled: false });
      await settled();
      expect(held()).toEqual([]);
      clock.set(new Date('2026-01-05T09:30:00.000Z'));
      await admin.updateJob('hourly', { enabled: true });
      await settled();
      expect(held()).toEqual([{ jobId: 'hourly', slot: '2026-01-05T10:00:00.000Z' }]);
      await admin.deleteJob('hourly');
      await settled();
      expect(held()).toEqual([]);
    });

    it("refuses a fire without the scheduler's token for this job and slot with 401 and fires nothing; an admin token fires by hand", async () => {
      clock.set(new Date('2026-01-05T09:40:00.000Z'));
      await admin.createJob({ id: 'guarded', skill: 'poll', schedule: '*/5 * * * *' });
      await admin.createJob({ id: 'other', skill: 'poll', schedule: '*/5 * * * *' });
      clock.set(new Date('2026-01-05T09:45:00.000Z'));
      const now = clock.now();
      const slot = '2026-01-05T09:45:00.000Z';
      /** A fire of `guarded` by a client holding `token` (none: the forEachBackend client, which holds no token). */
      const fire = (token: string | undefined, request: FireJobRequest = { slot }) =>
        (token === undefined ? ledger.client : ledger.newClient({ token })).fireJob('guarded', request);
      const refusals: Array<[string, string | undefined, string]> = [
        ['no token at all', undefined, 'CALLBACK_TOKEN_MISSING'],
        ['a write-scoped API token', WRITER, 'CALLBACK_TOKEN_MISSING'],
        ['a token for another job', await callbackToken({ sub: 'other', slot }, { now }), 'CALLBACK_TOKEN_WRONG_JOB'],
        ['a token for another slot', await callbackToken({ sub: 'guarded', slot: '2026-01-05T09:50:00.000Z' }, { now }), 'CALLBACK_TOKEN_WRONG_SLOT'],
        ['an expired token', await callbackToken({ sub: 'guarded', slot }, { now, age: 120, lifetime: 60 }), 'CALLBACK_TOKEN_EXPIRED'],
        ['a token signed with another secret', await callbackToken({ sub: 'guarded', slot }, { now, secret: `${SECRET}-not` }), 'CALLBACK_TOKEN_INVALID'],
        ['a token living longer than 5 minutes', await callbackToken({ sub: 'guarded', slot }, { now, lifetime: 301 }), 'CALLBACK_TOKEN_INVALID'],
        ['something that is no JWT', 'not-a-jwt', 'CALLBACK_TOKEN_INVALID'],
        ['a token issued a day ahead of the clock', await callbackToken({ sub: 'guarded', slot }, { now, age: -86_400 }), 'CALLBACK_TOKEN_INVALID'],
        ['a token issued two minutes ahead', await callbackToken({ sub: 'guarded', slot }, { now, age: -120 }), 'CALLBACK_TOKEN_INVALID'],
        ['a token whose tenant holds a NUL', await callbackToken({ sub: 'guarded', slot, tenant: 'acme\u0000' }, { now }), 'CALLBACK_TOKEN_INVALID'],
        ['a token whose tenant is no tenant name', await callbackToken({ sub: 'guarded', slot, tenant: 'Acme-Corp' }, { now }), 'CALLBACK_TOKEN_INVALID'],
      ];
      for (const [what, token, code] of refusals) {
        expect({ what, ...(await refusalOf(fire(token))) }).toEqual({ what, status: 401, code });
      }
      expect(await firedSlots('guarded')).toEqual([]);

      // The right token fires (its clock may run up to a minute ahead); a token naming the slot fires it when the body names none.
      // A fire answers 200 and nothing else when it succeeds.
      const fired = await fire(await callbackToken({ sub: 'guarded', slot }, { now, age: -45 }), {});
      expect(fired.slot).toBe(slot);
      const again = await refusalOf(fire(await callbackToken({ sub: 'guarded', slot }, { now })));
      expect([again.status, again.code]).toEqual([409, 'ALREADY_FIRED']);
      // By hand, with the admin token.
      await admin.fireJob('other', { slot });
      expect(await firedSlots('guarded')).toEqual([{ slot, trigger: 'external' }]);
      await admin.deleteJob('guarded');
      await admin.deleteJob('other');
      await settled();
    });

    it("registers a tenant's job with its tenant and fires the callback in that tenant", async () => {
      clock.set(new Date('2026-01-05T09:50:00.000Z'));
      const acme = ledger.newClient({ token: ACME });
      // The create route answers 201 and nothing else when it succeeds.
      await acme.createJob({ id: 'acme-digest', skill: 'digest', schedule: '0 10 * * *' });
      await settled();
      expect(held()).toEqual([{ jobId: 'acme-digest', slot: '2026-01-05T10:00:00.000Z', tenant: 'acme' }]);
      clock.set(new Date('2026-01-05T10:00:00.000Z'));
      expect(await scheduler.runDue()).toEqual([{ jobId: 'acme-digest', slot: '2026-01-05T10:00:00.000Z', status: 200 }]);
      expect(await firedSlots('acme-digest', 'acme~job-acme-digest')).toEqual([{ slot: '2026-01-05T10:00:00.000Z', trigger: 'external' }]);
      await acme.deleteJob('acme-digest');
      await settled();
      expect(held()).toEqual([]);
    });

    it('falls back to the built-in ticker while the scheduler is down, says so, goes back when it answers again; every slot fires once', async () => {
      clock.set(new Date('2026-01-05T10:05:00.000Z'));
      await admin.createJob({ id: 'quarterly', skill: 'poll', schedule: '*/15 * * * *' });
      await settled();
      expect(held()).toEqual([{ jobId: 'quarterly', slot: '2026-01-05T10:15:00.000Z' }]);
      clock.set(new Date('2026-01-05T10:15:00.000Z'));
      expect((await scheduler.runDue()).map((outcome) => outcome.status)).toEqual([200]);
      await settled();

      // The scheduler stops mid-run: the next registrations fail, three times in a row, and the ticker takes over.
      await scheduler.close();
      clock.set(new Date('2026-01-05T10:20:00.000Z'));
      await admin.createJob({ id: 'while-down', skill: 'poll', schedule: '*/10 * * * *' });
      await settled();
      // The typed readiness answer has no jobScheduler check: read raw.
      const ready = await ledger.service.request('GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.checks.jobScheduler).toMatchObject({ ok: false, timers: 'fallback', failuresInARow: 3, pending: 1 });
      expect((await ledger.service.request('GET', '/metrics', { headers: bearer(ADMIN) })).text).toMatch(/^ledger_job_scheduler_fallback 1$/m);

      clock.set(new Date('2026-01-05T10:30:00.000Z'));
      expect(await tick()).toMatchObject({ due: 2, fired: 2 });
      expect(registrations.timerOwner()).toBe('fallback');

      // It comes back on the same address with nothing in memory: the next tick finds it, hands the timers back and offers every job.
      await restartScheduler();
      clock.set(new Date('2026-01-05T10:31:00.000Z'));
      expect(await tick()).toMatchObject({ fired: 0 });
      expect(registrations.timerOwner()).toBe('scheduler');
      await settled();
      expect(held()).toEqual([
        { jobId: 'while-down', slot: '2026-01-05T10:40:00.000Z' },
        { jobId: 'quarterly', slot: '2026-01-05T10:45:00.000Z' },
      ]);
      const back = await ledger.service.request('GET', '/ready');
      expect([back.body.status, back.body.checks.jobScheduler.timers]).toEqual(['ready', 'scheduler']);
      expect((await ledger.service.request('GET', '/metrics', { headers: bearer(ADMIN) })).text).toMatch(/^ledger_job_scheduler_fallback 0$/m);

      // A callback for a slot the ticker fired while standing in is refused and dropped.
      await fetch(`http://127.0.0.1:${schedulerPort}/registrations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jobId: 'quarterly', slot: '2026-01-05T10:30:00.000Z', callbackUrl: `${ledger.service.url}/v1/jobs/quarterly/fire` }),
      });
      clock.set(new Date('2026-01-05T10:40:00.000Z'));
      expect(await scheduler.runDue()).toEqual([
        { jobId: 'quarterly', slot: '2026-01-05T10:30:00.000Z', status: 409, code: 'ALREADY_FIRED' },
        { jobId: 'while-down', slot: '2026-01-05T10:40:00.000Z', status: 200 },
      ]);
      // The ticker leaves a slot the scheduler holds alone while it is on time.
      clock.set(new Date('2026-01-05T10:45:00.000Z'));
      expect(await tick()).toMatchObject({ due: 0, fired: 0 });
      expect(await scheduler.runDue()).toEqual([{ jobId: 'quarterly', slot: '2026-01-05T10:45:00.000Z', status: 200 }]);
      await settled();

      // Restarted again, so quickly that no call failed: a registration it lost is fired by the ticker once overdue.
      await scheduler.close();
      await restartScheduler();
      clock.set(new Date('2026-01-05T10:50:30.000Z'));
      expect(await tick()).toMatchObject({ due: 0 });
      clock.set(new Date('2026-01-05T10:52:00.000Z'));
      expect(await tick()).toMatchObject({ due: 1, fired: 1 });
      await settled();
      expect(held()).toEqual([{ jobId: 'while-down', slot: '2026-01-05T11:00:00.000Z' }]);

      expect(await firedSlots('quarterly')).toEqual([
        { slot: '2026-01-05T10:15:00.000Z', trigger: 'external' },
        { slot: '2026-01-05T10:30:00.000Z', trigger: 'ticker' },
        { slot: '2026-01-05T10:45:00.000Z', trigger: 'external' },
      ]);
      expect(await firedSlots('while-down')).toEqual([
        { slot: '2026-01-05T10:30:00.000Z', trigger: 'ticker' },
        { slot: '2026-01-05T10:40:00.000Z', trigger: 'external' },
        { slot: '2026-01-05T10:50:00.000Z', trigger: 'ticker' },
      ]);
    });
  },
  (backend) => ({
    clock: clockOf(backend),
    env: {
      API_TOKEN,
      JOB_TICK_INTERVAL_MS: '0',
      JOBS_SCHEDULER_URL: schedulers.get(backend)!.url,
      JOBS_CALLBACK_SECRET: SECRET,
      JOBS_SCHEDULER_FALLBACK_AFTER: '3',
    },
  }),
);

describe('the reference scheduler', () => {
  it('keeps one registration per job and slot, and refuses malformed ones', async () => {
    const scheduler = new ReferenceScheduler({ secret: SECRET });
    const url = await scheduler.listen();
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const registration = { jobId: 'a', slot: '2026-01-05T09:00:00Z', callbackUrl: 'http://127.0.0.1:1/v1/jobs/a/fire' };
      expect((await post('', registration)).status).toBe(201);
      expect((await post('', { ...registration, slot: '2026-01-05T09:00:00.000Z' })).status).toBe(200);
      expect((await post('', { ...registration, slot: 'tomorrow' })).status).toBe(400);
      expect((await post('', { ...registration, callbackUrl: 'file:///etc/passwd' })).status).toBe(400);
      expect(scheduler.registrations()).toHaveLength(1);
      expect(await (await post('/cancel', { jobId: 'a' })).json()).toEqual({ cancelled: 1 });
      expect(scheduler.registrations()).toEqual([]);
    } finally {
      await scheduler.close();
    }
  });
});

if (backendsUnderTest().includes('postgres')) {
  describe('two instances on one PostgreSQL and one scheduler that comes and goes', () => {
    const schema = uniqueSchema('jobs_scheduler');
    const clock = new ManualClock(new Date('2026-01-05T09:01:00.000Z'));
    let scheduler: ReferenceScheduler;
    let port: number;
    let a: TestApp;
    let b: TestApp;

    async function startScheduler(at = 0): Promise<string> {
      scheduler = new ReferenceScheduler({ secret: SECRET, now: () => clock.now() });
      const url = await scheduler.listen(at);
      port = Number(new URL(url).port);
      return url;
    }

    async function firedSlots(jobId: string): Promise<string[]> {
      const events = await a.infrastructure.eventStore.readStream(`job-${jobId}`);
      return events.filter((event) => event.type === 'JobFired').map((event) => event.data.slot as string);
    }

    beforeAll(async () => {
      const url = await startScheduler();
      const env = { JOB_TICK_INTERVAL_MS: '0', JOBS_SCHEDULER_URL: url, JOBS_CALLBACK_SECRET: SECRET };
      a = await startTestApp('postgres', { schema, keepSchema: true, clock, env });
      b = await startTestApp('postgres', { schema, clock, env });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await scheduler?.close();
    });

    it('fires each slot once while both tickers and the callbacks race', async () => {
      const registrationsOf = (service: TestApp) => service.app.get(SchedulerRegistrations);
      const tickers = [a, b].map((service) => service.app.get(JobTicker));
      const caughtUp = async () => {
        for (const service of [a, b]) await service.request('GET', `/v1/jobs?minPosition=${await a.lastPosition()}`);
      };
      await a.request('POST', '/v1/jobs', { body: { id: 'racy', skill: 'poll', schedule: '*/5 * * * *' } });
      await registrationsOf(a).idle();
      expect(scheduler.registrations().map((registration) => registration.slot)).toEqual(['2026-01-05T09:05:00.000Z']);

      // The scheduler goes away; b finds out (three failed registrations), a does not.
      await scheduler.close();
      await b.request('POST', '/v1/jobs', { body: { id: 'racy-b', skill: 'poll', schedule: '*/5 * * * *' } });
      await registrationsOf(b).idle();
      expect([registrationsOf(a).timerOwner(), registrationsOf(b).timerOwner()]).toEqual(['scheduler', 'fallback']);

      // At the slot only b's ticker fires, however often both tick.
      clock.set(new Date('2026-01-05T09:05:00.000Z'));
      await caughtUp();
      await Promise.all(Array.from({ length: 6 }, (_, index) => tickers[index % 2]!.tick()));
      expect(await firedSlots('racy')).toEqual(['2026-01-05T09:05:00.000Z']);
      expect(await firedSlots('racy-b')).toEqual(['2026-01-05T09:05:00.000Z']);

      // Back, empty, and holding (as a scheduler that kept it would) the slot b's ticker already fired.
      await startScheduler(port);
      await fetch(`http://127.0.0.1:${port}/registrations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jobId: 'racy', slot: '2026-01-05T09:05:00.000Z', callbackUrl: `${a.url}/v1/jobs/racy/fire` }),
      });
      await tickers[1]!.tick();
      await registrationsOf(b).idle();
      expect(registrationsOf(b).timerOwner()).toBe('scheduler');
      expect(scheduler.registrations().map(({ jobId, slot }) => `${jobId}@${slot}`)).toEqual([
        'racy@2026-01-05T09:05:00.000Z',
        'racy@2026-01-05T09:10:00.000Z',
        'racy-b@2026-01-05T09:10:00.000Z',
      ]);

      // 90 s after the next slot the callbacks (one each) and both tickers' safety nets all go for it at once.
      clock.set(new Date('2026-01-05T09:11:30.000Z'));
      await caughtUp();
      const [outcomes] = await Promise.all([scheduler.runDue(), ...Array.from({ length: 6 }, (_, index) => tickers[index % 2]!.tick())]);
      expect(outcomes.find((outcome) => outcome.slot === '2026-01-05T09:05:00.000Z')).toMatchObject({ status: 409, code: 'ALREADY_FIRED' });
      for (const outcome of outcomes) expect([200, 409]).toContain(outcome.status);
      expect(await firedSlots('racy')).toEqual(['2026-01-05T09:05:00.000Z', '2026-01-05T09:10:00.000Z']);
      expect(await firedSlots('racy-b')).toEqual(['2026-01-05T09:05:00.000Z', '2026-01-05T09:10:00.000Z']);
    });
  });
}
