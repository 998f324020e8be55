// The example console bot (examples/console-bot) against the real service: turns, queueing while busy, a ledger restart, a bot crash.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { freePort, type ProcessStorage, processStorage, ServiceProcess } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const botEntry = resolve(import.meta.dirname, '../../dist/examples/console-bot/main.js');
const enc = encodeURIComponent;

type BotLine = Record<string, any> & { event: string };

/** The bot as a child process: lines in on stdin, JSON lines out, and a way to wait for the line you expect. */
class BotProcess {
  readonly lines: BotLine[] = [];
  stderr = '';
  private readonly child: ChildProcess;
  private waiters: Array<() => void> = [];

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [botEntry], { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        this.lines.push(JSON.parse(buffer.slice(0, end)) as BotLine);
        buffer = buffer.slice(end + 1);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  send(...lines: string[]): void {
    this.child.stdin!.write(lines.map((line) => `${line}\n`).join(''));
  }

  /** Waits until `count` lines match (or fails after the deadline, showing what the bot said). */
  async waitFor(match: (line: BotLine) => boolean, count = 1, timeoutMs = 60_000): Promise<BotLine[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`bot never said it (exit ${this.child.exitCode}):\n${this.lines.map((line) => JSON.stringify(line)).join('\n')}\n${this.stderr}`);
      }
      await new Promise<void>((wake) => {
        this.waiters.push(wake);
        setTimeout(wake, 200);
      });
    }
  }

  replies(chat: string): string[] {
    return this.lines.filter((line) => line.event === 'reply' && line.chat === chat).map((line) => line.text as string);
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }

  /** Closes stdin: the bot answers what is left, stops cleanly, exits. */
  async finish(): Promise<number | null> {
    const exited = once(this.child, 'exit');
    this.child.stdin!.end();
    const [code] = (await exited) as [number | null];
    return code;
  }
}

for (const backend of e2eBackends()) {
  describe(`example console bot: ${backend}`, () => {
    let storage: ProcessStorage;
    let service: ServiceProcess;
    const botEnv = (extra: Record<string, string> = {}) => ({ LEDGER_URL: service.url, BOT_GATEWAY_ID: `console-${backend}`, BOT_THINK_MS: '300', ...extra });
    const getJson = async (path: string) => (await fetch(`${service.url}${path}`)).json() as Promise<any>;

    beforeAll(async () => {
      storage = processStorage(backend, 'bot');
      service = new ServiceProcess(await freePort(), { ...storage.env, JOB_TICK_INTERVAL_MS: '0' });
      await service.start();
    }, 120_000);
    afterAll(async () => {
      await service?.kill('SIGTERM');
      await storage?.dispose();
    });

    it('answers, queues while busy, survives a ledger restart, and hears about a suspension', { timeout: 240_000 }, async () => {
      const bot = new BotProcess(botEnv());
      try {
        await bot.waitFor((line) => line.event === 'ready');
        bot.send('alice: one', 'alice: two', 'alice: three');
        // While "one" is being answered, "two" and "three" wait in the ledger's queue, in order.
        const queued = await bot.waitFor((line) => line.event === 'queued' && line.chat === 'alice', 2);
        expect(queued.map((line) => line.depth)).toEqual([1, 2]);
        const replies = await bot.waitFor((line) => line.event === 'reply' && line.chat === 'alice', 3);
        expect(replies.map((line) => line.text)).toEqual(['echo #1: one', 'echo #2: two', 'echo #3: three']);
        const sessionId = replies[0]!.sessionId;
        expect(new Set(replies.map((line) => line.sessionId))).toEqual(new Set([sessionId]));

        // The ledger dies hard; a message arrives while it is down; it comes back on the same storage.
        await service.kill('SIGKILL');
        bot.send('alice: four');
        await service.start();
        const [four] = await bot.waitFor((line) => line.event === 'reply' && line.text === 'echo #4: four');
        expect(four).toMatchObject({ chat: 'alice', sessionId, turnIndex: 4 });

        // The lifecycle stream reconnected after the restart: a suspension from elsewhere reaches the bot.
        const key = 'agent:main:console:dm:alice';
        await fetch(`${service.url}/v1/conversations/${enc(key)}/suspend`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        await bot.waitFor((line) => line.event === 'notice' && line.chat === 'alice' && line.type === 'Suspended');
        bot.send('alice: five');
        const [five] = await bot.waitFor((line) => line.event === 'reply' && line.text === 'echo #1: five');
        expect(five.sessionId).not.toBe(sessionId);

        // A job delivering to a console chat: the bot hears the fire on the same stream and reports the run.
        const postJson = async (path: string, body: object) =>
          (
            await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
          ).json() as Promise<any>;
        const job = await postJson('/v1/jobs', { prompt: 'stand-up time', schedule: '* * * * *', deliverTo: { platform: 'console', chatId: 'alice' } });
        const fired = await postJson(`/v1/jobs/${job.id}/fire`, {});
        const [announced] = await bot.waitFor((line) => line.event === 'job' && line.jobId === job.id);
        expect(announced).toMatchObject({ chat: 'alice', text: 'stand-up time', position: fired.position });
        expect(
          await eventually(
            () => getJson(`/v1/jobs/${job.id}`),
            (view) => view.lastStatus === 'ok',
          ),
        ).toMatchObject({ lastStatus: 'ok' });

        const transcript = await getJson(`/v1/sessions/${sessionId}/transcript`);
        const users = transcript.messages.filter((message: { role: string }) => message.role === 'user');
        expect(users.map((message: { content: string }) => message.content)).toEqual(['one', 'two', 'three', 'four']);
        expect(new Set(users.map((message: { metadata: { clientMessageId: string } }) => message.metadata.clientMessageId)).size).toBe(4);
        expect(await bot.finish()).toBe(0);
        expect(bot.lines.at(-1)).toMatchObject({ event: 'stopped', reason: 'end of input' });
      } finally {
        await bot.kill();
      }
    });

    it('after a crash of the bot itself, a new bot resumes the chat and answers what waited in the queue', { timeout: 240_000 }, async () => {
      const crashing = new BotProcess(botEnv({ BOT_THINK_MS: '5000' }));
      let queuedAt: number | undefined;
      try {
        await crashing.waitFor((line) => line.event === 'ready');
        crashing.send('bob: a', 'bob: b', 'bob: c');
        const queued = await crashing.waitFor((line) => line.event === 'queued' && line.chat === 'bob', 2);
        queuedAt = Math.max(...queued.map((line) => line.position as number));
      } finally {
        // kill -9 while "a" is still with the agent: "b" and "c" are in the ledger, not in the bot.
        await crashing.kill();
      }
      expect(crashing.replies('bob')).toEqual([]);
      // The new bot's start picks recently active chats from the sessions index: let it see bob's last write first.
      expect((await fetch(`${service.url}/v1/sessions/by-key/${enc('agent:main:console:dm:bob')}?minPosition=${queuedAt ?? 0}`)).status).toBe(200);

      const successor = new BotProcess(botEnv({ BOT_THINK_MS: '100' }));
      try {
        // No clean stop was recorded: the ledger marks bob's conversation, and the new bot hears it should resume.
        const [resume] = await successor.waitFor((line) => line.event === 'resume' && line.chat === 'bob');
        expect(resume).toMatchObject({ sessionKey: 'agent:main:console:dm:bob', reason: 'restart_interrupted' });
        const replies = await successor.waitFor((line) => line.event === 'reply' && line.chat === 'bob', 2);
        expect(replies.map((line) => line.text)).toEqual(['echo #1: b', 'echo #2: c']);
        const queue = await getJson(`/v1/conversations/${enc('agent:main:console:dm:bob')}/queue`);
        expect(queue.depth).toBe(0);
        expect(await successor.finish()).toBe(0);
      } finally {
        await successor.kill();
      }
    });
  });
}
