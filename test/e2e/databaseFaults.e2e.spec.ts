// PostgreSQL faults under load: the database away and back (a TCP proxy cuts and refuses connections) and backends terminated mid-transaction.
// The service answers 503 with a code meanwhile (never 500), /ready says so, it reconnects by itself, and nothing acknowledged is lost.
import { connect, createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyScore, expectNothingLost, type LoadScore, startWriteLoad } from '../support/writeLoad.js';
import { waitUntil } from '../support/waitUntil.js';
import { storedTurnTexts } from '../support/storedTurns.js';
import { TcpProxy } from '../support/tcpProxy.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';

const databaseUrl = process.env.TEST_DATABASE_URL;
const OUTAGES = Number(process.env.DB_FAULT_OUTAGES ?? 2);
const TERMINATIONS = Number(process.env.DB_FAULT_TERMINATIONS ?? 5);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `count` more turns are acknowledged: the load is really flowing. */
const acknowledgedMore = (score: LoadScore, count: number) => {
  const target = score.acknowledged.length + count;
  return waitUntil(async () => score.acknowledged.length >= target, `${count} acknowledged turns`);
};

async function expectNothingLostIn(service: TestApp, score: LoadScore): Promise<void> {
  expectNothingLost(score, await storedTurnTexts(databaseUrl!, service.config.eventStoreSchema));
}

/** Projections back at the head of the log, owned and live, and /ready green. */
async function expectRecovered(service: TestApp): Promise<void> {
  await waitUntil(async () => {
    const ready = await service.request('GET', '/ready');
    const { projections } = (await service.request('GET', '/v1/admin/projections')).body;
    return (
      ready.status === 200 && projections.every((projection: { lagEvents: number; state: string }) => projection.lagEvents === 0 && projection.state === 'live')
    );
  }, 'the service to recover');
}

describe('tcp proxy', () => {
  it('forwards both ways, cuts every connection when the database goes away, refuses new ones, and forwards again after', async () => {
    const echo = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const target = { host: '127.0.0.1', port: (echo.address() as { port: number }).port };
    const proxy = await TcpProxy.start(target);
    const exchange = () =>
      new Promise<string>((resolve) => {
        const socket = connect(proxy.port, '127.0.0.1', () => socket.write('ping'));
        let received = '';
        socket.on('data', (chunk) => {
          received += chunk;
          socket.end();
        });
        socket.on('error', () => resolve(`error:${received}`));
        socket.on('close', () => resolve(received));
      });
    try {
      expect(await exchange()).toBe('ping');
      const open = connect(proxy.port, '127.0.0.1');
      const closed = new Promise((resolve) => open.on('close', resolve));
      open.on('error', () => undefined);
      await waitUntil(async () => proxy.connectionCount > 0, 'the connection to be proxied', 5_000);
      proxy.goAway();
      await closed;
      expect(await exchange()).not.toBe('ping');
      proxy.comeBack();
      expect(await exchange()).toBe('ping');
    } finally {
      await proxy.close();
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});

if (databaseUrl && backendsUnderTest().includes('postgres')) {
  describe('database faults on PostgreSQL', () => {
    let proxy: TcpProxy;
    let service: TestApp;
    // Every connection of this service carries it (the URL's parameter wins over the pool's own), so a
    // termination can never hit another test's backends on the same server.
    const applicationName = uniqueSchema('ledger_faults');

    beforeAll(async () => {
      const target = new URL(databaseUrl);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      const url = new URL(proxy.urlFor(databaseUrl));
      url.searchParams.set('application_name', applicationName);
      service = await startTestApp('postgres', { env: { EVENT_STORE_URL: url.toString(), JOB_TICK_INTERVAL_MS: '0', RUNTIME_WATCHDOG_INTERVAL_MS: '0' } });
    });
    afterAll(async () => {
      proxy?.comeBack();
      await service?.close();
      await proxy?.close();
    });

    it(
      `answers 503 with a code while the database is away (${OUTAGES} outages), reconnects by itself, and loses nothing acknowledged`,
      { timeout: 240_000 },
      async () => {
        const score = emptyScore();
        const stop = startWriteLoad({ baseUrl: () => service.url, score, clients: 8, conversations: 4, label: 'away' });
        try {
          for (let outage = 0; outage < OUTAGES; outage++) {
            await acknowledgedMore(score, 10);
            const before = score.unavailable.length + score.unavailableCodes.size;
            proxy.goAway();
            await sleep(1_500);
            const ready = await service.request('GET', '/ready');
            expect(ready.status).toBe(503);
            expect(ready.body.status).toBe('not_ready');
            expect(ready.body.checks.eventStore.ok).toBe(false);
            expect((await service.request('GET', '/health')).status).toBe(200);
            // A read that needs the database is a 503 with a code too.
            const read = await service.request('GET', '/v1/sessions?limit=1');
            expect(read.status).toBe(503);
            expect(read.body.error.code).toEqual(expect.stringMatching(/UNAVAILABLE$/));
            expect(score.unavailable.length + score.unavailableCodes.size).toBeGreaterThan(before);
            proxy.comeBack();
            await acknowledgedMore(score, 10);
          }
        } finally {
          proxy.comeBack();
          await stop();
        }
        expect([...score.unavailableCodes].sort()).toEqual(expect.arrayContaining([expect.stringMatching(/^(DATABASE|EVENT_STORE)_UNAVAILABLE$/)]));
        await expectRecovered(service);
        await expectNothingLostIn(service, score);
        console.info(
          `database away: ${OUTAGES} outages; ${score.acknowledged.length} turns acknowledged, ${score.unavailable.length} answered 503 (${[...score.unavailableCodes].join(', ')}), none lost`,
        );
      },
    );

    it(
      `survives its connections terminated mid-transaction (${TERMINATIONS} rounds of pg_terminate_backend) with nothing acknowledged lost`,
      { timeout: 240_000 },
      async () => {
        const admin = new pg.Client({ connectionString: databaseUrl });
        await admin.connect();
        const score = emptyScore();
        let terminated = 0;
        let inTransaction = 0;
        const stop = startWriteLoad({ baseUrl: () => service.url, score, clients: 8, conversations: 4, label: 'terminated' });
        try {
          for (let round = 0; round < TERMINATIONS; round++) {
            await acknowledgedMore(score, 10);
            const result = await admin.query<{ state: string | null; terminated: boolean }>(
              `SELECT state, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
             WHERE application_name = $1 AND client_port = ANY($2::int[]) AND pid <> pg_backend_pid()`,
              [applicationName, proxy.upstreamPorts()],
            );
            terminated += result.rows.filter((row) => row.terminated).length;
            inTransaction += result.rows.filter((row) => row.state === 'active' || row.state?.startsWith('idle in transaction')).length;
          }
          await acknowledgedMore(score, 10);
        } finally {
          await stop();
          await admin.end();
        }
        expect(terminated).toBeGreaterThan(TERMINATIONS);
        expect(inTransaction).toBeGreaterThan(0);
        await expectRecovered(service);
        await expectNothingLostIn(service, score);
        console.info(
          `database faults: ${terminated} backends terminated (${inTransaction} mid-statement or mid-transaction), ${score.acknowledged.length} turns acknowledged, ${score.unavailable.length} answered 503`,
        );
      },
    );
  });
}
