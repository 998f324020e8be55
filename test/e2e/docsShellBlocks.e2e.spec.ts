// Every shell block of README.md and docs/getting-started.md runs as written against a fresh service, so the docs cannot rot.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

interface ShellBlock {
  line: number;
  script: string;
  /** Why the block is not run, from the `<!-- docs test: not run (why) -->` line right above it; undefined: it runs. */
  notRun?: string;
}

/** The ```sh / ```bash / ```shell blocks of a Markdown file, each with the reason it is left out, if it is. */
function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const fence = /^```(\w*)\s*$/.exec(lines[index]!);
    if (!fence) continue;
    const end = lines.indexOf('```', index + 1);
    if (end === -1) throw new Error(`unclosed code block at line ${index + 1}`);
    if (['sh', 'bash', 'shell'].includes(fence[1]!)) {
      const marker = /^<!-- docs test: not run \((.+)\) -->$/.exec(lines[index - 1] ?? '');
      blocks.push({ line: index + 1, script: lines.slice(index + 1, end).join('\n'), notRun: marker?.[1] });
    }
    index = end;
  }
  return blocks;
}

/**
 * The docs address the service as localhost:3000, as a reader runs it. Here a fresh service listens on a free port
 * (3000 may be anyone's on a shared machine), and that address is the one thing changed in the blocks.
 */
const aimedAt = (script: string, url: string) => script.replaceAll(/(?:http:\/\/)?(?:localhost|127\.0\.0\.1):3000/g, url);

/** What a reader has already done before a block, when it is not a block: the console bot has talked to the ledger. */
const GIVEN: Array<{ when: RegExp; given: (service: TestApp) => Promise<void> }> = [
  {
    when: /console%3Adm%3Aalice\/suspend/,
    given: async (service) => {
      const resolved = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'console', chatType: 'dm', chatId: 'alice', userName: 'alice' } },
      });
      expect(resolved.status).toBe(201);
    },
  },
];

for (const document of ['README.md', 'docs/getting-started.md']) {
  describe(`shell blocks of ${document}`, () => {
    const blocks = shellBlocks(readFileSync(resolve(root, document), 'utf8'));
    let service: TestApp;
    beforeAll(async () => {
      service = await startTestApp('pglite');
    }, 300_000);
    afterAll(async () => {
      await service?.close();
    });

    it('each block runs or says why not', () => {
      expect(blocks.length).toBeGreaterThan(0);
      expect(blocks.filter((block) => block.notRun === undefined).length, 'at least one block runs').toBeGreaterThan(0);
      for (const block of blocks) if (block.notRun !== undefined) expect(block.notRun.length, `line ${block.line}`).toBeGreaterThan(20);
    });

    // One shell per document, blocks in order: a variable a block captures (a session id) is there for the next ones.
    it('the blocks that run succeed in order, with no error answer', { timeout: 120_000 }, async () => {
      let env = { ...process.env } as Record<string, string>;
      for (const block of blocks.filter((candidate) => candidate.notRun === undefined)) {
        for (const { when, given } of GIVEN) if (when.test(block.script)) await given(service);
        // Each block runs with set -euo pipefail, then hands the shell's variables (set -a exports them) to the next.
        const script = `set -euo pipefail -a\n${aimedAt(block.script, service.url)}\nprintf '\\n%s\\n' '--- env ---'\nenv -0`;
        let stdout: string;
        try {
          ({ stdout } = await run('bash', ['-c', script], { cwd: root, env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }));
        } catch (error) {
          const failed = error as { code: number; stdout: string; stderr: string };
          throw new Error(
            `${document} line ${block.line} exited ${failed.code}:\n${block.script}\n--- stdout\n${failed.stdout}\n--- stderr\n${failed.stderr}`,
            { cause: error },
          );
        }
        const [output, environment] = stdout.split('\n--- env ---\n') as [string, string];
        expect(output, `${document} line ${block.line}:\n${block.script}`).not.toMatch(/\{"error":/);
        expect(output.trim().length, `${document} line ${block.line} printed nothing`).toBeGreaterThan(0);
        env = Object.fromEntries(
          environment
            .split('\0')
            .filter((entry) => entry.includes('='))
            .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
        );
      }
    });
  });
}
