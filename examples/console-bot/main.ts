// The example console bot: `chat: text` lines on stdin, JSON lines on stdout. See README.md next to it.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { LedgerClient } from '../../src/client/index.js';
import { ConsoleBot, type Output } from './consoleBot.js';
import { EchoAgent } from './echoAgent.js';
import { parseInputLine } from './inputLine.js';
import { followLifecycle } from './lifecycleNotices.js';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const out: Output = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const ledger = new LedgerClient({
  baseUrl: env('LEDGER_URL', 'http://127.0.0.1:3000'),
  token: process.env.LEDGER_TOKEN,
  // A ledger restart takes seconds: keep trying a refused connection for a minute before giving up on a message.
  retry: { maxAttempts: 60, maxDelayMs: 1_000, maxElapsedMs: 60_000 },
  onRetry: (operation, attempt, reason) =>
    process.stderr.write(`retrying ${operation} (${attempt}): ${reason instanceof Error ? reason.message : String(reason)}\n`),
});
const bot = new ConsoleBot(ledger, new EchoAgent(Number(env('BOT_THINK_MS', '300'))), env('BOT_GATEWAY_ID', 'console-bot'), out);
const drainMs = Number(env('BOT_DRAIN_MS', '10000'));

const notices = new AbortController();
const lifecycle = followLifecycle(ledger, out, notices.signal).catch((error: unknown) => out({ event: 'error', message: `event stream: ${String(error)}` }));

let stopping: Promise<never> | undefined;
function stop(reason: string): Promise<never> {
  stopping ??= (async () => {
    await bot.stop(drainMs).catch((error: unknown) => out({ event: 'error', message: `stop: ${String(error)}` }));
    notices.abort();
    await lifecycle;
    out({ event: 'stopped', reason });
    process.exit(0);
  })();
  return stopping;
}

await bot.start(randomUUID());
out({ event: 'ready' });
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const parsed = parseInputLine(line);
  if (parsed) void bot.receive(parsed);
  else if (line.trim() !== '') out({ event: 'ignored', line });
});
// End of input: answer everything that came in (the queue included), then stop cleanly.
input.on('close', () => {
  void bot.drain(Number.POSITIVE_INFINITY).then(() => stop('end of input'));
});
