// kill -9 in the middle of an erasure: the log was rewritten, the read models not yet. The next start finishes it,
// and a retry of the request answers the erasure's result instead of 404.
import { randomBytes, randomInt } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { ErasureCrashStep } from '../../src/config/erasureCrashSteps.js';
import { eventually } from '../support/eventually.js';
import { freePort, processStorage, ServiceProcess, type ProcessStorage } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const enc = encodeURIComponent;
const RECORDED = 'erasure recorded; closing sessions and rebuilding read models';

for (const backend of e2eBackends()) {
  describe(`erasure cut short by kill -9 (${backend})`, () => {
    let storage: ProcessStorage;
    let service: ServiceProcess | undefined;
    afterAll(async () => {
      await service?.kill();
      await storage?.dispose();
    });

    it('finishes on its own after the restart, and a retry answers its result', { timeout: 240_000 }, async () => {
      storage = processStorage(backend, 'erasecrash');
      const port = await freePort();
      const env = { ...storage.env, LOG_LEVEL: 'info', RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' };
      service = new ServiceProcess(port, env);
      await service.start(120_000);
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${service!.url}${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
      };

      const marker = `zq${randomBytes(6).toString('hex')}`;
      const chatId = String(randomInt(10 ** 9, 10 ** 10));
      const source = { platform: 'telegram', chatType: 'dm', chatId, userId: chatId, userName: `Alice ${marker}` };
      const resolved = await call('POST', '/v1/sessions/resolve', { source, gatewayId: 'gw' });
      expect(resolved.status, resolved.text).toBe(201);
      const { sessionKey, sessionId } = resolved.body;
      const turn = await call('POST', `/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: `hello ${marker}` }] });
      expect(turn.status, turn.text).toBe(201);
      // Enough other conversations that rebuilding the read models takes a while after the rewrite.
      for (let index = 0; index < 40; index++) {
        expect(
          (await call('POST', '/v1/sessions/resolve', { source: { platform: 'telegram', chatType: 'dm', chatId: `bystander${index}` }, gatewayId: 'gw' }))
            .status,
        ).toBe(201);
      }
      const listed = await call('GET', `/v1/sessions?limit=500&minPosition=${turn.body.position}`);
      expect(listed.text).toContain(marker);

      // The erase request, killed as soon as its rewrite has committed with its record.
      const outputBefore = service.output.length;
      const request = call('POST', '/v1/admin/erase', { sessionKey }).then(
        (answer) => answer,
        (error: unknown) => error,
      );
      await eventually(
        () => service!.output.slice(outputBefore),
        (output) => output.includes(RECORDED),
        60_000,
      );
      await service.kill('SIGKILL');
      const cut = await request;
      expect(cut, 'the erase request got no answer').toBeInstanceOf(Error);
      const recordedLine = service.output
        .slice(outputBefore)
        .split('\n')
        .find((line) => line.includes(RECORDED))!;
      const erasureId: string = JSON.parse(recordedLine).erasureId;
      expect(erasureId).toMatch(/^erasure_[0-9a-f]{16}$/);

      // The restart finishes it: the sessions list no longer names her, and the log says it was resumed.
      service = new ServiceProcess(port, env);
      await service.start(120_000);
      const sessionsList = async () => (await call('GET', '/v1/sessions?limit=500')).text;
      const after = await eventually(sessionsList, (text) => text.includes('bystander39') && !text.includes(marker), 90_000);
      expect(after).not.toContain(marker);
      expect(after).toContain('bystander39');
      expect(service.output).toContain('resuming an erasure that was cut short');
      expect((await call('GET', `/v1/conversations/${enc(sessionKey)}`)).status).toBe(404);
      expect((await call('GET', `/v1/sessions/${sessionId}/transcript`)).text).not.toContain(marker);

      // A retry of the request answers the erasure it began, finished, instead of 404.
      const retried = await call('POST', '/v1/admin/erase', { sessionKey });
      expect(retried.status, retried.text).toBe(200);
      expect(retried.body).toMatchObject({ erasureId, tenant: null, sessionsDestroyed: 1 });
      expect(retried.body.streams).toContain(`session-${sessionId}`);
      expect(retried.text).not.toContain(sessionKey);
      const again = await call('POST', '/v1/admin/erase', { sessionKey });
      expect(again.body).toEqual(retried.body);
    });
  });
}

// The same, cut at each later step of the erasure (ERASURE_TEST_CRASH_AT, test-only): after a restart and a retry,
// nothing names her, on either database layout: read models beside the log, or in a database of their own.
const crashSteps: Record<'pglite' | 'postgres', ErasureCrashStep[]> = { pglite: ['rebuilt'], postgres: ['closed', 'settled', 'rebuilt', 'completed'] };

for (const backend of e2eBackends()) {
  describe(`erasure killed at each step (${backend})`, () => {
    let storage: ProcessStorage;
    let service: ServiceProcess | undefined;
    afterAll(async () => {
      await service?.kill();
      await storage?.dispose();
      await dropSeparateDatabases();
    });

    it('finishes after the restart whatever step the kill cut, and the retry answers it', { timeout: 240_000 }, async () => {
      storage = processStorage(backend, 'erasesteps');
      const port = await freePort();
      const env = { ...storage.env, LOG_LEVEL: 'warn', RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' };
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${service!.url}${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
      };
      const steps = crashSteps[backend as 'pglite' | 'postgres'] ?? ['rebuilt'];
      for (const [index, step] of steps.entries()) {
        // On PostgreSQL, the later half with the read models in a database of their own (not one transaction with the log).
        const layout = backend === 'postgres' && index % 2 === 1 ? await separateReadModels(storage) : {};
        service = new ServiceProcess(port, { ...env, ...layout, ERASURE_TEST_CRASH_AT: step });
        await service.start(120_000);
        const marker = `zq${randomBytes(6).toString('hex')}`;
        const chatId = String(randomInt(10 ** 9, 10 ** 10));
        const source = { platform: 'telegram', chatType: 'dm', chatId, userId: chatId, userName: `Alice ${marker}` };
        const { sessionKey, sessionId } = (await call('POST', '/v1/sessions/resolve', { source, gatewayId: 'gw' })).body;
        const turn = await call('POST', `/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: `hello ${marker}` }] });
        expect(turn.status, turn.text).toBe(201);
        const bystander = (
          await call('POST', '/v1/sessions/resolve', {
            source: { platform: 'telegram', chatType: 'dm', chatId: `bystander-${index}-${randomInt(10 ** 6)}` },
            gatewayId: 'gw',
          })
        ).body;
        expect((await call('GET', `/v1/sessions?limit=500&minPosition=${turn.body.position}`)).text).toContain(marker);

        const cut = await call('POST', '/v1/admin/erase', { sessionKey }).then(
          (answer) => answer,
          (error: unknown) => error,
        );
        expect(cut, `the erase killed at ${step} got no answer`).toBeInstanceOf(Error);
        await service.kill();

        service = new ServiceProcess(port, { ...env, ...layout });
        await service.start(120_000);
        const retried = await call('POST', '/v1/admin/erase', { sessionKey });
        expect(retried.status, `${step}: ${retried.text}`).toBe(200);
        expect(retried.body.streams).toContain(`session-${sessionId}`);
        const listed = await call('GET', `/v1/sessions?limit=500&minPosition=${retried.body.position}`);
        expect(listed.status, listed.text).toBe(200);
        expect(listed.text, step).toContain(bystander.sessionKey);
        for (const value of [marker, sessionKey, chatId]) {
          expect(listed.text, `${step}: the sessions list`).not.toContain(value);
          expect((await call('GET', '/v1/export/sessions.json')).text, `${step}: the export`).not.toContain(value);
        }
        expect((await call('GET', `/v1/conversations/${enc(sessionKey)}`)).status, step).toBe(404);
        expect((await call('GET', `/v1/sessions/${sessionId}/transcript`)).text, step).not.toContain(marker);
        const found = await call('GET', `/v1/search?q=${marker}&minPosition=${retried.body.position}`);
        expect(found.status, found.text).toBe(200);
        expect(found.text.split(marker).length - 1, `${step}: search finds only the query`).toBeLessThanOrEqual(1);
        await service.kill();
      }
    });
  });
}

/** The read models in a database of their own on the same server (created once), its schema the storage's. */
/** A database of its own for the read models, dropped with the file's other storage (`separateDatabases`). */
async function separateReadModels(storage: ProcessStorage): Promise<Record<string, string>> {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  const database = `${url.pathname.slice(1)}_erase_rm_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE "${database}"`);
  await client.end();
  separateDatabases.push(database);
  url.pathname = `/${database}`;
  return { DATABASE_URL: url.toString(), READ_MODEL_SCHEMA: `${storage.eventStoreSchema.replace(/_es$/, '')}_rs` };
}

const separateDatabases: string[] = [];

async function dropSeparateDatabases(): Promise<void> {
  if (separateDatabases.length === 0) return;
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  for (const database of separateDatabases.splice(0)) await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await client.end();
}
