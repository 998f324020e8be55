// Claude Agent SDK sessions kept by Session Ledger: import a Claude Code transcript, or run a query that resumes from the ledger. See README.md next to it.
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getSessionMessages, importSessionToStore, listSessions, listSubagents, query } from '@anthropic-ai/claude-agent-sdk';
import { LedgerSessionStore } from '../../src/adapters/claudeAgentSdk/index.js';

const store = new LedgerSessionStore({
  url: process.env.LEDGER_URL ?? 'http://127.0.0.1:3000',
  ...(process.env.LEDGER_TOKEN ? { token: process.env.LEDGER_TOKEN } : {}),
});
const [command = 'import', ...rest] = process.argv.slice(2);

/** The repository's sample transcript (a session with a subagent), placed where Claude Code keeps a project's sessions. */
async function sampleTranscript(): Promise<{ sessionId: string; dir: string }> {
  const configDir = await mkdtemp(join(tmpdir(), 'claude-config-'));
  const repository = resolve(import.meta.dirname, '../../..');
  await cp(join(repository, 'test/fixtures/claude-code'), join(configDir, 'projects', '-home-dev-weather-app'), { recursive: true });
  process.env.CLAUDE_CONFIG_DIR = configDir;
  return { sessionId: '8d0f4c2a-51b7-4f0e-9a63-2c7e5d1b9f40', dir: '/home/dev/weather-app' };
}

if (command === 'import') {
  // import [session-id] [project-dir]: a session from ~/.claude (or CLAUDE_CONFIG_DIR); without an id, the sample.
  const { sessionId, dir } = rest[0] ? { sessionId: rest[0], dir: resolve(rest[1] ?? '.') } : await sampleTranscript();
  await importSessionToStore(sessionId, store, { dir });
  for (const session of await listSessions({ dir, sessionStore: store })) console.log(`${session.sessionId}  ${session.summary}`);
  const messages = await getSessionMessages(sessionId, { dir, sessionStore: store });
  const subagents = await listSubagents(sessionId, { dir, sessionStore: store });
  console.log(`${sessionId}: ${messages.length} messages, subagents: ${subagents.join(', ') || 'none'}`);
} else if (command === 'ask') {
  // ask "prompt": Claude Code runs (it needs its credentials), mirroring its transcript to the ledger; SESSION_ID
  // resumes a session from the ledger, on any host.
  const prompt = rest.join(' ') || 'Say hello in five words.';
  for await (const message of query({
    prompt,
    options: { sessionStore: store, maxTurns: 1, ...(process.env.SESSION_ID ? { resume: process.env.SESSION_ID } : {}) },
  })) {
    if (message.type === 'result') {
      console.log(message.subtype === 'success' ? message.result : `failed: ${message.subtype}`);
      console.log(`continue it: SESSION_ID=${message.session_id} node dist/examples/claude-agent-sdk/main.js ask "…"`);
    }
  }
} else {
  console.error('usage: main.js import [session-id [project-dir]] | main.js ask "prompt"');
  process.exitCode = 2;
}
