// The built service (dist/src/main.js) as a child process: started on a storage, probed, measured (RSS), stopped.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ProcessMemory {
  /** Resident set size now, in bytes. */
  rss: number;
  /** The highest resident set size so far (the kernel's high-water mark), in bytes. */
  peakRss: number;
}

export class BenchService {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk) => this.keep(chunk));
    child.stderr?.on('data', (chunk) => this.keep(chunk));
  }

  /**
   * Logs at `warn`: a log line per request would measure pino as much as the service. BENCH_SERVICE_NODE_OPTIONS
   * reaches the service's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under load).
   */
  static async start(env: Record<string, string>, timeoutMs = 120_000): Promise<BenchService> {
    const port = await freePort();
    const entry = fileURLToPath(new URL('../../src/main.js', import.meta.url));
    const nodeOptions = process.env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
    // BENCH_SERVICE_ENV="NAME=value NAME=value": settings to try on the benchmarked service, e.g. a batch size.
    const tried = Object.fromEntries(
      (process.env.BENCH_SERVICE_ENV?.split(' ').filter(Boolean) ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    const child = spawn(process.execPath, [...nodeOptions, entry], {
      env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env, ...tried },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service = new BenchService(child, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${service.output}`);
      if (
        await service.get('/health').then(
          (response) => response.ok,
          () => false,
        )
      )
        return service;
      await sleep(100);
    }
    await service.stop();
    throw new Error(`the service did not start within ${timeoutMs} ms:\n${service.output}`);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get(path: string): Promise<Response> {
    return fetch(`${this.url}${path}`);
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(`${this.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** Waits until every projection has applied the whole log, so catch-up work does not fall into a measurement. */
  async waitForProjections(timeoutMs: number, onProgress?: (lag: number) => void): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let reported = 0;
    while (Date.now() < deadline) {
      const response = await this.get('/v1/admin/projections');
      if (response.ok) {
        const { projections } = (await response.json()) as { projections: Array<{ name: string; lagEvents: number; state: string }> };
        const lag = Math.max(...projections.map((projection) => projection.lagEvents));
        if (lag === 0 && projections.every((projection) => projection.state === 'live')) return;
        if (Date.now() - reported > 10_000) {
          onProgress?.(lag);
          reported = Date.now();
        }
      }
      await sleep(500);
    }
    throw new Error(`projections did not catch up within ${timeoutMs} ms`);
  }

  /** From /proc (Linux): what the kernel counts as the service's resident memory. */
  async memory(): Promise<ProcessMemory> {
    const status = await readFile(`/proc/${this.pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
  }

  /**
   * CPU time the service process has used so far (user + system, all its threads), in milliseconds: on a shared
   * machine a request's CPU cost moves far less with the load than its rate does.
   */
  async cpuMs(): Promise<number> {
    const stat = await readFile(`/proc/${this.pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100/s).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  }

  /** SIGTERM, as an orchestrator stops it: requests in flight finish, stores close. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  private keep(chunk: Buffer): void {
    // The tail is enough to explain a failed start; a long run must not grow this without bound.
    this.output = (this.output + chunk.toString()).slice(-20_000);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
