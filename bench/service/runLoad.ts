// Runs one LoadSpec in a load-generator child process, so the generator's CPU is not the service's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec } from './loadScenario.js';

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const entry = fileURLToPath(new URL('./loadGenerator.js', import.meta.url));
  const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdin.end(JSON.stringify(spec));
  const code = await exited;
  if (code !== 0) throw new Error(`the load generator exited with ${code}: ${stderr}`);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadResult;
}
