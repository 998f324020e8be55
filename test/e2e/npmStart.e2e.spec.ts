// `npm start` as an operator runs it: how long until /health answers (printed), and SIGTERM/SIGINT to npm stop the service.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/serviceProcess.js';

const root = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'ledger-npm-start-'));
const running = new Set<ChildProcess>();
afterAll(() => {
  // A failed test may leave the service behind npm: each npm leads its own process group, ended whole.
  for (const npm of running) {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  npm: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  msToHealth: number;
}

async function npmStart(port: number): Promise<Started> {
  const began = performance.now();
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', API_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(npm);
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += chunk));
  npm.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    npm.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output}`);
    if (performance.now() - began > 300_000) throw new Error(`npm start did not answer /health in 300 s:\n${output}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return { npm, url, output: () => output, exited, msToHealth: Math.round(performance.now() - began) };
}

const refused = (url: string) =>
  fetch(`${url}/health`).then(
    () => false,
    () => true,
  );

describe('npm start', () => {
  it(
    'answers /health quickly on unchanged sources, redirects / to the console, and stops on SIGTERM and SIGINT sent to npm',
    { timeout: 660_000 },
    async () => {
      const port = await freePort();
      // The first start compiles if the sources changed since the last build; the second finds nothing to compile.
      const first = await npmStart(port);
      const root = await fetch(`${first.url}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(new URL(root.headers.get('location')!, `${first.url}/`).pathname).toBe('/console/');
      expect((await fetch(new URL(root.headers.get('location')!, `${first.url}/`))).headers.get('content-type')).toContain('text/html');

      first.npm.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });
      expect(first.output()).toContain('"msg":"stopped"');
      expect(await refused(first.url)).toBe(true);

      const second = await npmStart(port);
      second.npm.kill('SIGINT');
      expect(await second.exited).toEqual({ code: 0, signal: null });
      expect(second.output()).toContain('"reason":"SIGINT"');
      expect(second.output()).toContain('"msg":"stopped"');
      expect(await refused(second.url)).toBe(true);

      const load = loadavg()
        .map((figure) => figure.toFixed(2))
        .join(' ');
      console.log(
        `npm start → /health answering: first start ${first.msToHealth} ms, second start on unchanged sources ${second.msToHealth} ms (target 10000 ms; load average ${load})`,
      );
      expect(second.msToHealth).toBeGreaterThan(0);
    },
  );
});
