// A PostgreSQL cluster of its own in a temporary folder, for torture tests that stop and start the server: the shared one stays up.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './serviceProcess.js';

const run = promisify(execFile);

async function binDir(): Promise<string> {
  const { stdout } = await run('pg_config', ['--bindir']);
  const candidate = stdout.trim();
  // Debian's pg_config may name a folder without the server binaries; they live under /usr/lib/postgresql/<n>/bin.
  if (existsSync(join(candidate, 'pg_ctl'))) return candidate;
  const { stdout: listed } = await run('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1']);
  if (!listed.trim()) throw new Error('no PostgreSQL server binaries (pg_ctl, initdb) found');
  return listed.trim();
}

export class ThrowawayPostgres {
  private constructor(
    private readonly bin: string,
    private readonly dataDir: string,
    private readonly root: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(): Promise<ThrowawayPostgres> {
    const bin = await binDir();
    const root = mkdtempSync(join(tmpdir(), 'ledger-pg-'));
    const cluster = new ThrowawayPostgres(bin, join(root, 'data'), root, await freePort());
    // PostgreSQL refuses to run as root: the cluster belongs to the postgres user then.
    if (process.getuid?.() === 0) await run('chown', ['-R', 'postgres', root]);
    await cluster.pg('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
    await cluster.start();
    return cluster;
  }

  async start(): Promise<void> {
    await this.pg('pg_ctl', [
      'start',
      '-w',
      '-D',
      this.dataDir,
      '-l',
      join(this.root, 'server.log'),
      '-o',
      `-p ${this.port} -k ${this.root} -c listen_addresses=127.0.0.1 -c fsync=off`,
    ]);
  }

  /** `immediate` is a crash (no checkpoint, every connection dropped); `fast` a clean shutdown that still ends every session. */
  async stop(mode: 'fast' | 'immediate'): Promise<void> {
    await this.pg('pg_ctl', ['stop', '-w', '-m', mode, '-D', this.dataDir]);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.root, { recursive: true, force: true });
  }

  private async pg(program: string, args: string[]): Promise<void> {
    const path = join(this.bin, program);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
    else await run(path, args);
  }
}
