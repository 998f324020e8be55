// Runs the built CLI (dist/src/cli/main.js) as a child process, as `npx session-ledger …` would.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const cliEntry = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runLedgerCli(env: Record<string, string>, args: string[], timeoutMs = 120_000): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliEntry, ...args], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'error', ...env },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Standard output as JSON lines (the `events` command). */
export const jsonLines = (stdout: string): any[] =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
