// The CLI's serve, events, export and projections rebuild as child processes, on the stores and against a served instance.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEntry, jsonLines, runLedgerCli } from '../support/ledgerCli.js';
import { freePort, type ProcessStorage, processStorage } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const enc = encodeURIComponent;

/** `session-ledger serve`, waited on until /health answers. */
async function serveViaCli(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [cliEntry, 'serve'], { env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}:\n${output}`);
    if (await fetch(`${url}/health`).then((response) => response.ok, () => false)) return { url, child, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`serve did not start:\n${output}`);
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

for (const backend of e2eBackends()) {
  describe(`ledger CLI commands: ${backend}`, () => {
    let storage: ProcessStorage;
    let served: Awaited<ReturnType<typeof serveViaCli>>;
    let sessionKey: string;
    let sessionId: string;
    let suspendedAt: number;
    let exportedByService: unknown;
    const post = async (path: string, body: object) =>
      (await fetch(`${served.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;

    beforeAll(async () => {
      storage = processStorage(backend, 'clicmd');
      served = await serveViaCli(storage.env);
      const first = await post('/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'tail-me' } });
      ({ sessionKey, sessionId } = first);
      await post('/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'someone-else' } });
      for (const text of ['one', 'two']) await post(`/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: text }] });
      suspendedAt = (await post(`/v1/conversations/${enc(sessionKey)}/suspend`, {})).position;
    }, 120_000);
    afterAll(async () => {
      if (served && served.child.exitCode === null) await stop(served.child);
      await storage?.dispose();
    });

    it('events --url: streams a running service, filtered, until the limit', async () => {
      const tailed = await runLedgerCli({}, ['events', '--url', served.url, '--session-key', sessionKey, '--from', '0', '--limit', '4']);
      expect(tailed.code, tailed.stderr).toBe(0);
      expect(jsonLines(tailed.stdout).map((event) => event.type)).toEqual(['ConversationOpened', 'SessionBound', 'SessionCreated', 'TurnRecorded']);

      // --follow ends at the limit too; started before the write it waits for, it sees it arrive.
      const from = suspendedAt;
      const follower = runLedgerCli({}, ['events', '--url', served.url, '--follow', '--type', 'ResumeMarked', '--from', String(from), '--limit', '1']);
      const marked = await post(`/v1/conversations/${enc('agent:main:cli:dm:someone-else')}/resume-pending`, { reason: 'restart_timeout' });
      const followed = await follower;
      expect(followed.code, followed.stderr).toBe(0);
      expect(jsonLines(followed.stdout)).toMatchObject([{ type: 'ResumeMarked', position: marked.position, streamName: 'conversation-agent:main:cli:dm:someone-else' }]);
      exportedByService = await (await fetch(`${served.url}/v1/export/sessions.json?minPosition=${marked.position}`)).json();
    });

    it('serve stops cleanly on SIGTERM', async () => {
      expect(await stop(served.child)).toBe(0);
      expect(served.output()).not.toMatch(/"level":50|Error/);
    });

    it('events: the log from the stores, by type, conversation, stream, position and limit', async () => {
      const turns = await runLedgerCli(storage.env, ['events', '--session-key', sessionKey, '--type', 'TurnRecorded,Suspended']);
      expect(turns.code, turns.stderr).toBe(0);
      const lines = jsonLines(turns.stdout);
      expect(lines.map((event) => [event.type, event.streamName])).toEqual([
        ['TurnRecorded', `session-${sessionId}`],
        ['TurnRecorded', `session-${sessionId}`],
        ['Suspended', `conversation-${sessionKey}`],
      ]);
      expect(lines[0]).toMatchObject({ revision: 1, data: { messages: [{ content: 'one' }] } });
      expect(lines[2].position).toBe(suspendedAt);

      const byStream = jsonLines((await runLedgerCli(storage.env, ['events', '--stream', `conversation-${sessionKey}`])).stdout);
      expect(byStream.map((event) => event.type)).toEqual(['ConversationOpened', 'SessionBound', 'Suspended']);
      const afterSuspend = jsonLines((await runLedgerCli(storage.env, ['events', '--from', String(suspendedAt), '--limit', '1'])).stdout);
      expect(afterSuspend).toHaveLength(1);
      expect(afterSuspend[0].position).toBeGreaterThan(suspendedAt);
    });

    it("export: the stores' sessions index as the service exports it", async () => {
      const folder = await mkdtemp(join(tmpdir(), 'ledger-export-'));
      try {
        const out = join(folder, 'sessions.json');
        const exported = await runLedgerCli(storage.env, ['export', '--out', out]);
        expect(exported.code, exported.stderr).toBe(0);
        expect(exported.stderr).toContain('wrote 2 entries');
        expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(exportedByService);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });

    it('projections rebuild: plain progress lines with a percentage off a terminal', async () => {
      const rebuilt = await runLedgerCli(storage.env, ['projections', 'rebuild', 'sessions-index']);
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect(rebuilt.stderr).toMatch(/^rebuild sessions-index: 100% \((\d+)\/\1\), position \d+, 0 events to go/m);
      expect(JSON.parse(rebuilt.stdout)).toMatchObject({ name: 'sessions-index', lagEvents: 0 });
    });

    it('refuses bad command lines with exit code 2 and says why', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['events', '--from', 'yesterday'], /--from must be a whole number/],
        [['events', '--url', 'http://127.0.0.1:1'], /with --url, give --follow or --limit/],
        [['events', '--bogus'], /Unknown option '--bogus'/],
        [['teleport'], /unknown command teleport[\s\S]*usage: session-ledger serve/],
        [['serve', 'now'], /serve takes no arguments/],
        [['export', 'extra'], /usage:/],
      ];
      for (const [args, message] of cases) {
        const result = await runLedgerCli(storage.env, args);
        expect([args.join(' '), result.code]).toEqual([args.join(' '), 2]);
        expect(result.stderr).toMatch(message);
      }
      const noService = await runLedgerCli({}, ['export', '--url', `http://127.0.0.1:${await freePort()}`]);
      expect(noService.code).toBe(1);
      expect(noService.stderr).toMatch(/no answer from the service/);
    });
  });
}
