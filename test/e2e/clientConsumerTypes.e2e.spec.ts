// The client package as a consumer installs it: its exports point at compiled .d.ts files, and a project under
// strict, exactOptionalPropertyTypes and skipLibCheck false compiles against them (and fails on a wrong use).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const CONSUMER = `
import {
  LedgerApiError,
  LedgerClient,
  type CheckpointList,
  type ResolveRequest,
  type RollbackResponse,
  type RuntimeDetachResponse,
  type RuntimeTurnResponse,
  type SessionStateView,
  type WorkerEvent,
} from 'session-ledger/client';

const client = new LedgerClient({ baseUrl: 'http://127.0.0.1:3000', token: process.env.TOKEN ?? 'secret' });
const request: ResolveRequest = { source: { platform: 'telegram', chatType: 'dm', chatId: '12345' } };

export async function run(): Promise<string> {
  try {
    const resolved = await client.resolveSession(request);
    const turn = await client.recordTurn(resolved.sessionId, { messages: [{ role: 'user', content: 'hi' }] });
    const checkpoints: CheckpointList = await client.listCheckpoints(resolved.sessionId);
    const first = checkpoints.checkpoints[0];
    if (first) {
      const rolledBack: RollbackResponse = await client.rollback(resolved.sessionId, first.checkpointId);
      console.log(rolledBack.targetRevision);
    }
    const state: SessionStateView = await client.sessionState(resolved.sessionId);
    const fork = await client.forkSession(resolved.sessionId, {});
    const tree = await client.sessionTree(fork.sessionId, { maxDepth: 2 });
    const child = tree.nodes[1];
    if (child) await client.destroySession(child.sessionId, { cascade: true });
    await client.setMemory(resolved.sessionId, 'user.name', { value: { first: 'Ada' } });
    await client.switchSlot(resolved.sessionId, (await client.createSlot(resolved.sessionId, 'research')).name);
    const started: RuntimeTurnResponse = await client.newRuntime(resolved.sessionKey, { task: 'fix the build' });
    const report: WorkerEvent = { type: 'approval_request', approvalId: 'a-1', details: { command: 'rm -rf build' } };
    await client.reportWorkerEvent(started.runtimeSessionId, report);
    await client.answerApproval(started.runtimeSessionId, 'a-1', { decision: 'deny' });
    const unbound: RuntimeDetachResponse = await client.newRuntime(resolved.sessionKey);
    const job = await client.updateJob('digest', { enabled: false, deliverTo: null });
    const { projections } = await client.listProjections();
    return \`\${turn.turnIndex} \${state.revision} \${tree.rootSessionId} \${unbound.state} \${job.changed} \${projections.length}\`;
  } catch (error) {
    if (error instanceof LedgerApiError) return error.code;
    throw error;
  }
}
`;

describe('the client package for a TypeScript consumer', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'client-consumer-'));
    await mkdir(join(folder, 'node_modules'), { recursive: true });
    // Installed as a dependency is: the package folder under node_modules, resolved through its exports.
    await symlink(ROOT, join(folder, 'node_modules', 'session-ledger'), 'dir');
    await symlink(join(ROOT, 'node_modules', '@types'), join(folder, 'node_modules', '@types'), 'dir');
    await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await writeFile(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          noEmit: true,
        },
        include: ['consumer.ts'],
      }),
    );
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const compile = () =>
    promisify(execFile)(process.execPath, [TSC, '-p', folder], { cwd: folder }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );

  it('points its types at compiled declaration files', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string }> };
    expect(manifest.exports['./client']!.types).toBe('./dist/src/client/index.d.ts');
    await expect(readFile(join(ROOT, 'dist', 'src', 'client', 'index.d.ts'), 'utf8')).resolves.toContain('LedgerClient');
  });

  it('compiles a strict consumer with exactOptionalPropertyTypes and skipLibCheck false', { timeout: 120_000 }, async () => {
    await writeFile(join(folder, 'consumer.ts'), CONSUMER);
    expect(await compile()).toBe('');
  });

  it('refuses a consumer that misuses the types (the check can fail)', { timeout: 120_000 }, async () => {
    await writeFile(
      join(folder, 'consumer.ts'),
      `${CONSUMER}\nexport const wrong: ResolveRequest = { source: { platform: 'telegram', chatType: 'dm', chatId: undefined } };\n`,
    );
    expect(await compile()).toContain('exactOptionalPropertyTypes');
  });
});
