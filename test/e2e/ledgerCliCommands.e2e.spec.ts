// The CLI's serve, events, export, search and projections rebuild as child processes, on the stores and against a served instance.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { cliEntry, jsonLines, runLedgerCli } from '../support/ledgerCli.js';
import { freePort, type ProcessStorage, processStorage } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const enc = encodeURIComponent;

/** `session-ledger serve`, waited on until /health answers. */
async function serveViaCli(
  env: Record<string, string>,
  spawned: (child: ChildProcess) => void = () => {},
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [cliEntry, 'serve'], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  // Opening a fresh PGlite folder takes a minute or more on a busy machine.
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}:\n${output}`);
    if (
      await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { url, child, output: () => output };
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
  // Each test starts several CLI processes: on a busy machine one can take seconds.
  describe(`ledger CLI commands: ${backend}`, { timeout: 180_000 }, () => {
    let storage: ProcessStorage;
    let served: Awaited<ReturnType<typeof serveViaCli>>;
    let starting: ChildProcess | undefined;
    let sessionKey: string;
    let sessionId: string;
    let suspendedAt: number;
    let exportedByService: unknown;
    let searchedByService: unknown;
    const post = async (path: string, body: object) =>
      (
        await fetch(`${served.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json() as Promise<any>;

    beforeAll(async () => {
      storage = processStorage(backend, 'clicmd');
      served = await serveViaCli(storage.env, (child) => (starting = child));
      const first = await post('/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'tail-me' } });
      ({ sessionKey, sessionId } = first);
      await post('/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'someone-else' } });
      for (const text of ['one', 'two 决定使用']) await post(`/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: text }] });
      suspendedAt = (await post(`/v1/conversations/${enc(sessionKey)}/suspend`, {})).position;
    }, 300_000);
    afterAll(async () => {
      if (served && served.child.exitCode === null) await stop(served.child);
      // A start that timed out leaves its process: it must not outlive the file.
      if (starting && starting.exitCode === null && starting.signalCode === null) starting.kill('SIGKILL');
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
      expect(jsonLines(followed.stdout)).toMatchObject([
        { type: 'ResumeMarked', position: marked.position, streamName: 'conversation-agent:main:cli:dm:someone-else' },
      ]);
      exportedByService = await (await fetch(`${served.url}/v1/export/sessions.json?minPosition=${marked.position}`)).json();
    });

    // The data-folder lock exists only for the embedded store.
    if (backend === 'pglite')
      it('refuses at once to open the data folder the service holds, naming the folder and the process', async () => {
        const began = performance.now();
        const list = await runLedgerCli(storage.env, ['projections', 'list']);
        const refusedInMs = Math.round(performance.now() - began);
        expect(list.code, list.stderr).toBe(4);
        expect(list.stdout).toBe('');
        expect(list.stderr).toContain(`the data folder ${storage.dataDir} is in use by process ${served.child.pid}`);
        const writing = await runLedgerCli(storage.env, ['projections', 'rebuild', 'sessions-index']);
        expect(writing.code, writing.stderr).toBe(4);
        expect(writing.stderr).not.toContain('rebuild sessions-index:');

        // A second service on the same folder (another port) stops before it opens anything.
        const second = spawn(process.execPath, [cliEntry, 'serve'], {
          env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'warn', ...storage.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let secondOutput = '';
        second.stderr!.on('data', (chunk) => (secondOutput += chunk));
        const exited = once(second, 'exit');
        // Should this test time out, the second service must not outlive it and take the folder over.
        onTestFinished(() => {
          if (second.exitCode === null && second.signalCode === null) second.kill('SIGKILL');
        });
        const [code] = (await exited) as [number | null];
        expect(code, secondOutput).toBe(4);
        expect(secondOutput).toContain(`is in use by process ${served.child.pid}`);
        // The holder is undisturbed.
        expect((await fetch(`${served.url}/health`)).status).toBe(200);
        console.log(`CLI refused a held data folder in ${refusedInMs} ms (process start included)`);
      });

    it("search --url: a running service's hits, printed and as JSON", async () => {
      // The CLI's client has written nothing to wait for: the index is brought up to the writes here first.
      expect((await fetch(`${served.url}/v1/search?q=two&minPosition=${suspendedAt}`)).status).toBe(200);
      const printed = await runLedgerCli({}, ['search', '--url', served.url, 'two', '决定']);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toContain(`session ${sessionId} turn 2 message 1`);
      expect(printed.stdout).toContain('>>>two<<< >>>决定<<<使用');
      const json = await runLedgerCli({}, ['search', '--url', served.url, '--json', '--by-session', 'two']);
      expect(json.code, json.stderr).toBe(0);
      searchedByService = JSON.parse(json.stdout);
      expect(searchedByService).toMatchObject({ query: 'two', sessions: [{ sessionId, sessionKey, hitCount: 1 }], nextCursor: null });
      const refused = await runLedgerCli({}, ['search', '--url', served.url, '--role', 'two words', 'two']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--role');
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

    it('projections list: the stored positions and what the owner last stored, without claiming to run anything', async () => {
      const listed = await runLedgerCli(storage.env, ['projections', 'list']);
      expect(listed.code, listed.stderr).toBe(0);
      const statuses = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
      const index = statuses.find((status) => status.name === 'sessions-index')!;
      expect(index).toMatchObject({ storedState: 'running', lagEvents: 0, lastError: null });
      expect(index.position).toBe(index.headPosition);
      for (const status of statuses) {
        expect(status).not.toHaveProperty('ownedHere');
        expect(status).not.toHaveProperty('state');
      }
    });

    // The data-folder lock exists only for the embedded store.
    if (backend === 'pglite')
      it('takes over a lock its dead holder left behind, and lets go of it when done', async () => {
        const lockFile = join(storage.dataDir, 'ledger.lock');
        const gone = spawn(process.execPath, ['-e', '']);
        await once(gone, 'exit');
        await writeFile(lockFile, JSON.stringify({ pid: gone.pid, command: 'session-ledger serve', since: new Date().toISOString() }));
        const listed = await runLedgerCli(storage.env, ['projections', 'list']);
        expect(listed.code, listed.stderr).toBe(0);
        await expect(access(lockFile)).rejects.toThrow();
      });

    it("search: the stores' search index as the service answers it", async () => {
      const searched = await runLedgerCli(storage.env, ['search', '--json', '--by-session', 'two']);
      expect(searched.code, searched.stderr).toBe(0);
      expect(JSON.parse(searched.stdout)).toEqual(searchedByService);
      const none = await runLedgerCli(storage.env, ['search', 'absent']);
      expect(none.stdout).toBe('nothing found\n');
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
        [['events', '--bogus'], /^session-ledger events: unknown option --bogus\n[\s\S]*see session-ledger events --help$/m],
        [['events', '--type', 'Suspended,Bogus'], /UNKNOWN_EVENT_TYPE[\s\S]*unknown event type Bogus: the known types are [\s\S]*Suspended/],
        [['teleport'], /^session-ledger: unknown command teleport\nsee session-ledger --help$/m],
        [['serve', 'now'], /serve takes no arguments/],
        [['export', 'extra'], /unexpected argument extra[\s\S]*see session-ledger export --help/],
        [['projections', 'list', '--all'], /unknown option --all[\s\S]*see session-ledger projections --help/],
        [['replay', '--session'], /option '--session <value>' argument missing/],
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
