// The ledger CLI as a child process (the built dist/): replays sessions and conversations from the store exactly as the API shows them.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp } from '../support/testApp.js';

const run = promisify(execFile);
const cli = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

async function ledger(env: Record<string, string>, ...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, LOG_LEVEL: 'error', ...env }, timeout: 60_000 });
    return { code: 0, json: JSON.parse(stdout), stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, json: undefined, stderr: failed.stderr };
  }
}

for (const backend of e2eBackends()) {
  describe(`ledger CLI: ${backend}`, () => {
    it('prints a session at a revision, now, and a conversation, as the API does; refuses what does not exist', { timeout: 180_000 }, async () => {
      expect(existsSync(cli), `${cli} is missing: npm run build (npm test does it first)`).toBe(true);
      const dataDir = await mkdtemp(join(tmpdir(), 'ledger-cli-'));
      const service = await startTestApp(backend, backend === 'pglite' ? { env: { DATA_DIR: dataDir } } : {});
      let closed = false;
      try {
        const post = (path: string, body: object = {}) => service.request('POST', path, { body });
        const { sessionId, sessionKey } = (await post('/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'audit' } })).body;
        const turn = (text: string) =>
          post(`/v1/sessions/${sessionId}/turns`, {
            messages: [{ role: 'user', content: [{ type: 'text', text }] }],
            usage: { inputTokens: 7, costUsd: 0.001 },
          });
        const first = await turn('one');
        await service.request('PUT', `/v1/sessions/${sessionId}/memory/goal`, { body: { value: { what: 'audit', why: 'because' } } });
        await turn('two');
        await post(`/v1/sessions/${sessionId}/rollback`, { checkpointId: first.body.checkpointId });
        const atFirst = (await service.request('GET', `/v1/sessions/${sessionId}/state?revision=${first.body.revision}`)).body;
        const now = await service.request('GET', `/v1/sessions/${sessionId}/state?revision=4`);

        const env: Record<string, string> = { EVENT_STORE_SCHEMA: service.config.eventStoreSchema, READ_MODEL_SCHEMA: service.config.readModelSchema };
        if (backend === 'pglite') {
          env.DATA_DIR = dataDir;
          // One process at a time may open a PGlite folder: the service lets go of it first.
          await service.close();
          closed = true;
        } else {
          env.EVENT_STORE_URL = process.env.TEST_DATABASE_URL!;
        }

        const replayed = await ledger(env, 'replay', '--session', sessionId, '--revision', String(first.body.revision));
        expect(replayed.code, replayed.stderr).toBe(0);
        expect(replayed.json).toEqual(atFirst);
        const latest = await ledger(env, 'replay', '--session', sessionId);
        expect(latest.json).toEqual(now.body);
        expect(latest.json.state).toEqual(atFirst.state);
        const conversation = await ledger(env, 'replay', '--conversation', sessionKey);
        expect(conversation.json).toMatchObject({ sessionKey, revision: 1, state: { status: 'open', sessionId } });

        const missing = await ledger(env, 'replay', '--session', '20260101_000000_deadbeef');
        expect(missing.code).toBe(3);
        expect(JSON.parse(missing.stderr).error.code).toBe('SESSION_NOT_FOUND');
        expect((await ledger(env, 'replay')).code).toBe(2);

        // projections rebuild: empties the index and replays it to the same position it had.
        const before = await ledger(env, 'projections', 'list');
        const indexBefore = before.json.find((status: { name: string }) => status.name === 'sessions-index');
        const rebuilt = await ledger(env, 'projections', 'rebuild', 'sessions-index');
        expect(rebuilt.code, rebuilt.stderr).toBe(0);
        expect(rebuilt.json).toMatchObject({ name: 'sessions-index', position: indexBefore.position, lagEvents: 0 });
        expect(rebuilt.stderr).toContain('events to go');
        const unknown = await ledger(env, 'projections', 'rebuild', 'nope');
        expect(unknown.code).toBe(3);
        expect(JSON.parse(unknown.stderr).error.code).toBe('PROJECTION_NOT_FOUND');
      } finally {
        if (!closed) await service.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
}
