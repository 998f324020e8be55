// Torture only: the real PostgreSQL server stopped (crash and clean) and started under load, on a cluster of its own.
// The service answers 503 with a code while it is down, /ready says so, it reconnects by itself, and nothing acknowledged is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ServiceProcess } from '../support/serviceProcess.js';
import { storedTurnTexts } from '../support/storedTurns.js';
import { ThrowawayPostgres } from '../support/throwawayPostgres.js';
import { waitUntil } from '../support/waitUntil.js';
import { emptyScore, expectNothingLost, startWriteLoad } from '../support/writeLoad.js';

const RESTARTS = Number(process.env.CLUSTER_RESTARTS ?? 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL server restarted under load', () => {
  let cluster: ThrowawayPostgres;
  let service: ServiceProcess;

  beforeAll(async () => {
    cluster = await ThrowawayPostgres.create();
    service = new ServiceProcess(await freePort(), { EVENT_STORE_URL: cluster.url, JOB_TICK_INTERVAL_MS: '0', RUNTIME_WATCHDOG_INTERVAL_MS: '0' });
    await service.start();
  }, 120_000);
  afterAll(async () => {
    await service?.kill('SIGKILL');
    await cluster?.destroy();
  });

  it(`survives ${RESTARTS} server stops (crash and clean) with nothing acknowledged lost`, { timeout: 120_000 + RESTARTS * 60_000 }, async () => {
    const score = emptyScore();
    const stop = startWriteLoad({ baseUrl: () => service.url, score, clients: 8, conversations: 4, label: 'restart' });
    try {
      for (let restart = 0; restart < RESTARTS; restart++) {
        const target = score.acknowledged.length + 20;
        await waitUntil(async () => score.acknowledged.length >= target, 'acknowledged turns', 120_000);
        const before = score.unavailable.length;
        await cluster.stop(restart % 2 === 0 ? 'immediate' : 'fast');
        await sleep(1_500);
        const ready = await fetch(`${service.url}/ready`);
        expect(ready.status).toBe(503);
        expect(((await ready.json()) as { status: string }).status).toBe('not_ready');
        expect(score.unavailable.length).toBeGreaterThan(before);
        await cluster.start();
      }
      const target = score.acknowledged.length + 20;
      await waitUntil(async () => score.acknowledged.length >= target, 'turns after the last restart', 120_000);
    } finally {
      await stop();
    }
    await waitUntil(async () => (await fetch(`${service.url}/ready`)).status === 200, '/ready', 120_000);
    expectNothingLost(score, await storedTurnTexts(cluster.url, 'ledger'));
    console.info(
      `cluster restarts: ${RESTARTS} server stops; ${score.acknowledged.length} turns acknowledged, ${score.unavailable.length} answered 503, none lost`,
    );
  });
});
