// At most once across instances: two services on one PostgreSQL race external fires and tickers for the same slot.
// Without TEST_DATABASE_URL the same races run on one PGlite service, from two concurrent bursts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { JobTicker } from '../../src/modules/jobs/jobTicker.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** Fires one slot `count` times, spread round-robin over the instances, all at once. */
async function fireConcurrently(instances: TestApp[], jobId: string, slot: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, (_, index) => instances[index % instances.length]!.request('POST', `/v1/jobs/${jobId}/fire`, { body: { slot } })),
  );
}

async function firedSlots(service: TestApp, jobId: string): Promise<string[]> {
  const events = await service.infrastructure.eventStore.readStream(`job-${jobId}`);
  return events.filter((event) => event.type === 'JobFired').map((event) => event.data.slot as string);
}

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

function expectOneWinner(responses: Array<{ status: number; body: any }>, slot: string) {
  const winners = responses.filter((response) => response.status === 200);
  expect(winners).toHaveLength(1);
  expect(winners[0]!.body.slot).toBe(slot);
  const losers = responses.filter((response) => response.status !== 200);
  expect(losers).toHaveLength(responses.length - 1);
  for (const loser of losers) {
    expect(loser.status).toBe(409);
    expect(loser.body.error.code).toBe('ALREADY_FIRED');
  }
}

if (backendsUnderTest().includes('postgres')) {
  describe('jobs on two service instances sharing one PostgreSQL', () => {
    const schema = uniqueSchema('jobs_multi');
    // One clock for both instances, as if they ran on machines with synchronised clocks.
    const clock = new ManualClock(new Date('2026-01-05T08:59:00.000Z'));
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      // Real tickers on both, every 25 ms: they race for every due slot.
      const env = { JOB_TICK_INTERVAL_MS: '25' };
      a = await startTestApp('postgres', { schema, keepSchema: true, clock, env });
      b = await startTestApp('postgres', { schema, clock, env });
    });
    afterAll(async () => {
      await a?.close();
      // The last one out drops the shared schemas.
      await b?.close();
    });

    it('lets one of 20 fires of a slot, spread over both instances, win; 19 get 409 ALREADY_FIRED', async () => {
      const created = await a.request('POST', '/v1/jobs', { body: { id: 'hourly-report', skill: 'report', schedule: '0 * * * *' } });
      expect(created.body.nextRunAt).toBe('2026-01-05T09:00:00.000Z');
      // 30 s before the slot: within the early tolerance of an external fire, before any ticker would touch it.
      clock.set(new Date('2026-01-05T08:59:30.000Z'));
      const responses = await fireConcurrently([a, b], 'hourly-report', '2026-01-05T09:00:00Z', 20);
      expectOneWinner(responses, '2026-01-05T09:00:00.000Z');
      expect(await firedSlots(a, 'hourly-report')).toEqual(['2026-01-05T09:00:00.000Z']);
      // When the slot comes, neither ticker fires it again: nextRunAt is already 10:00.
      clock.set(new Date('2026-01-05T09:00:05.000Z'));
      await Promise.all([a.app.get(JobTicker).tick(), b.app.get(JobTicker).tick()]);
      expect(await firedSlots(b, 'hourly-report')).toEqual(['2026-01-05T09:00:00.000Z']);
    });

    it('lets both tickers run against one due job: exactly one JobFired per slot', async () => {
      clock.set(new Date('2026-01-05T09:01:00.000Z'));
      const created = await b.request('POST', '/v1/jobs', { body: { id: 'five-minutely', skill: 'poll', schedule: '*/5 * * * *' } });
      expect(created.body.nextRunAt).toBe('2026-01-05T09:05:00.000Z');
      await a.request('GET', `/v1/jobs?minPosition=${created.body.position}`);

      for (const slot of ['2026-01-05T09:05:00.000Z', '2026-01-05T09:10:00.000Z']) {
        clock.set(new Date(slot));
        expect(await until(async () => (await firedSlots(a, 'five-minutely')).includes(slot))).toBe(true);
        // Hammer both on top of their timers, then let the timers run a while longer.
        const tickers = [a, b].map((service) => service.app.get(JobTicker));
        await Promise.all(Array.from({ length: 10 }, (_, index) => tickers[index % 2]!.tick()));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await firedSlots(b, 'five-minutely')).filter((fired) => fired === slot)).toHaveLength(1);
      }
      expect(await firedSlots(a, 'five-minutely')).toEqual(['2026-01-05T09:05:00.000Z', '2026-01-05T09:10:00.000Z']);
    });
  });
}

describe('jobs racing on one embedded (PGlite) service', () => {
  const clock = new ManualClock(new Date('2026-01-05T08:59:00.000Z'));
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp('pglite', { clock, env: { JOB_TICK_INTERVAL_MS: '0' } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('lets one of two concurrent bursts of 10 fires of a slot win; 19 get 409 ALREADY_FIRED', async () => {
    await service.request('POST', '/v1/jobs', { body: { id: 'hourly-report', skill: 'report', schedule: '0 * * * *' } });
    clock.set(new Date('2026-01-05T09:00:00.000Z'));
    const bursts = await Promise.all([0, 1].map(() => fireConcurrently([service], 'hourly-report', '2026-01-05T09:00:00Z', 10)));
    expectOneWinner(bursts.flat(), '2026-01-05T09:00:00.000Z');
    expect(await firedSlots(service, 'hourly-report')).toEqual(['2026-01-05T09:00:00.000Z']);
  });

  it('fires a due job once when concurrent ticks race concurrent external fires', async () => {
    clock.set(new Date('2026-01-05T09:01:00.000Z'));
    const created = await service.request('POST', '/v1/jobs', { body: { id: 'five-minutely', skill: 'poll', schedule: '*/5 * * * *' } });
    await service.request('GET', `/v1/jobs?minPosition=${created.body.position}`);
    clock.set(new Date('2026-01-05T09:05:00.000Z'));
    const ticker = service.app.get(JobTicker);
    const [responses] = await Promise.all([fireConcurrently([service], 'five-minutely', '2026-01-05T09:05:00Z', 10), ticker.tick(), ticker.tick()]);
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
    expect(responses.filter((response) => response.status !== 200).every((response) => response.body.error.code === 'ALREADY_FIRED')).toBe(true);
    expect(await firedSlots(service, 'five-minutely')).toEqual(['2026-01-05T09:05:00.000Z']);
  });
});
