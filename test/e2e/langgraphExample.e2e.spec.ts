// examples/langgraph as its README runs it (the built file, two processes): the first stops at the approval, the
// second resumes the same thread from the ledger.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

const example = resolve(import.meta.dirname, '../../dist/examples/langgraph/main.js');
const run = promisify(execFile);

describe('examples/langgraph', () => {
  let service: TestApp;
  beforeAll(async () => {
    service = await startTestApp('pglite');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('stops at the approval in one process and resumes in the next', async () => {
    const env = { PATH: process.env.PATH, LEDGER_URL: service.url, THREAD_ID: 'ticket-17' };
    const opened = await run(process.execPath, [example, 'open', 'My parcel never came.'], { env });
    // The whole output on a failure: what the example printed says which step went wrong.
    const printed = `stdout:\n${opened.stdout}\nstderr:\n${opened.stderr}`;
    expect(opened.stdout, printed).toContain('ai: Proposed: refund 40 EUR for “My parcel never came.”.');
    expect(opened.stdout, printed).toContain('waiting for: {"question":"Approve the refund?"}');
    expect(opened.stdout, printed).toContain('resume it: THREAD_ID=ticket-17 node dist/examples/langgraph/main.js resume yes');
    const resumed = await run(process.execPath, [example, 'resume', 'yes'], { env });
    expect(resumed.stdout.split('\n').filter((line) => /^(human|ai):/.test(line))).toEqual([
      'human: My parcel never came.',
      'ai: Proposed: refund 40 EUR for “My parcel never came.”.',
      'ai: Refund sent.',
    ]);
    expect(resumed.stdout).not.toContain('waiting for');
    expect(resumed.stdout).toMatch(/thread ticket-17 \(ledger session ag_[0-9a-f]+\): 4 checkpoints/);
  });
});
