// --help and -h on the CLI and each command: usage on stdout, exit 0, quickly (the figures are printed, not asserted).
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const launcher = resolve(root, 'bin/session-ledger.js');
const COMMANDS = ['serve', 'replay', 'events', 'projections', 'export', 'import'];

async function timed(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const began = performance.now();
  try {
    const { stdout, stderr } = await run(file, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'error' }, timeout: 300_000 });
    return { code: 0, stdout, stderr, ms: Math.round(performance.now() - began) };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, ms: Math.round(performance.now() - began) };
  }
}

describe('session-ledger --help', () => {
  it('prints the usage with every command and the exit codes on stdout, exit 0, for --help, -h and help', { timeout: 600_000 }, async () => {
    // The first run may compile (sources changed since the last build); the figures are from the runs after it.
    await timed(process.execPath, [launcher, '--help']);
    for (const flag of ['--help', '-h', 'help']) {
      const result = await timed(process.execPath, [launcher, flag]);
      expect([flag, result.code, result.stderr]).toEqual([flag, 0, '']);
      expect(result.stdout).toMatch(/^usage: session-ledger <command>/);
      for (const command of COMMANDS) expect(result.stdout).toContain(`\n  ${command} `);
      expect(result.stdout).toContain('exit codes: 0 done');
    }
    const direct = await timed(process.execPath, [launcher, '--help']);
    const viaNpm = await timed('npm', ['run', '--silent', 'ledger', '--', '--help']);
    expect(viaNpm.code, viaNpm.stderr).toBe(0);
    expect(viaNpm.stdout).toBe(direct.stdout);
    const load = loadavg()
      .map((figure) => figure.toFixed(2))
      .join(' ');
    console.log(`session-ledger --help: ${direct.ms} ms (node bin/session-ledger.js), ${viaNpm.ms} ms (npm run ledger -- --help); load average ${load}`);
  });

  for (const command of COMMANDS) {
    it(`${command} --help and -h print that command's usage on stdout, exit 0`, { timeout: 120_000 }, async () => {
      for (const flag of ['--help', '-h']) {
        const result = await timed(process.execPath, [launcher, command, flag]);
        expect([flag, result.code, result.stderr]).toEqual([flag, 0, '']);
        expect(result.stdout).toMatch(new RegExp(`^usage: session-ledger ${command}`));
      }
      // Help wins over anything else on the line, even what would be refused.
      const mixed = await timed(process.execPath, [launcher, command, '--bogus', '--help']);
      expect(mixed.code).toBe(0);
      expect(mixed.stdout).toMatch(new RegExp(`^usage: session-ledger ${command}`));
      const helpTopic = await timed(process.execPath, [launcher, 'help', command]);
      expect(helpTopic.stdout).toBe(mixed.stdout);
    });
  }

  it('no command: exit 2 and a pointer to --help on stderr', async () => {
    const result = await timed(process.execPath, [launcher]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('session-ledger: no command given\nsee session-ledger --help\n');
  });
});
