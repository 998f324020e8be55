// Runs the built service (dist/) as a real child process, so tests can kill -9 it and start it again.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { uniqueSchema } from './testDatabases.js';

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export class ServiceProcess {
  private child?: ChildProcess;
  output = '';

  constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 60_000): Promise<void> {
    const entry = resolve(import.meta.dirname, '../../dist/src/main.js');
    this.child = spawn(process.execPath, [entry], {
      env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(this.port), LOG_LEVEL: 'warn', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk) => (this.output += chunk));
    this.child.stderr?.on('data', (chunk) => (this.output += chunk));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`service exited with ${this.child.exitCode}:\n${this.output}`);
      try {
        const response = await fetch(`${this.url}/health`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    // Not left running: a service still starting holds its data folder's lock, and the next test on that folder
    // would fail on the lock (exit 4) instead of on what it tests.
    await this.kill('SIGKILL');
    throw new Error(`service did not start in time:\n${this.output}`);
  }

  /** How the process ended (both null while it runs). */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } {
    return { code: this.child?.exitCode ?? null, signal: this.child?.signalCode ?? null };
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolveExit) => {
      child.once('exit', () => resolveExit());
      child.kill(signal);
    });
  }
}

/** Where a spawned service keeps its data: its own PGlite folder, or its own schemas on TEST_DATABASE_URL. */
export interface ProcessStorage {
  env: Record<string, string>;
  dataDir: string;
  /** The event log's schema, for tests that read the log directly after the service stopped. */
  eventStoreSchema: string;
  dispose(): Promise<void>;
}

export function processStorage(backend: 'pglite' | 'postgres', name: string): ProcessStorage {
  const dataDir = mkdtempSync(join(tmpdir(), `ledger-${name}-`));
  const schema = uniqueSchema(name);
  const url = process.env.TEST_DATABASE_URL;
  if (backend === 'postgres' && !url) throw new Error('TEST_DATABASE_URL is needed for the postgres backend');
  return {
    env: backend === 'postgres' ? { EVENT_STORE_URL: url!, EVENT_STORE_SCHEMA: `${schema}_es`, READ_MODEL_SCHEMA: `${schema}_rm` } : { DATA_DIR: dataDir },
    dataDir,
    eventStoreSchema: backend === 'postgres' ? `${schema}_es` : 'ledger',
    async dispose() {
      rmSync(dataDir, { recursive: true, force: true });
      if (backend !== 'postgres') return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}_es" CASCADE; DROP SCHEMA IF EXISTS "${schema}_rm" CASCADE`);
      await client.end();
    },
  };
}
