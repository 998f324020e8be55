// The adapters' frameworks are optional: the typed client never names one, and an adapter only borrows its types.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const sources = (folder: string) =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file: join(folder, file), text: readFileSync(join(root, folder, file), 'utf8') }));
const imports = (text: string) =>
  [...text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)].map((match) => ({ typeOnly: Boolean(match[2]), from: match[3]! }));

describe('optional agent frameworks', () => {
  it('are never imported by the typed client (session-ledger/client)', () => {
    for (const { file, text } of sources('src/client'))
      expect([file, imports(text).filter((entry) => /^@(openai|anthropic-ai|langchain|google)\//.test(entry.from))]).toEqual([file, []]);
  });

  it('are imported by session-ledger/openai-agents for their types only, so loading it loads none of the SDK', () => {
    const found = sources('src/adapters/openaiAgents').flatMap(({ text }) => imports(text).filter((entry) => entry.from.startsWith('@openai/')));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((entry) => entry.typeOnly)).toBe(true);
  });

  it('are imported by session-ledger/claude-agent-sdk for their types only: the SDK loads when summaries are folded', () => {
    const files = sources('src/adapters/claudeAgentSdk');
    const found = files.flatMap(({ text }) => imports(text).filter((entry) => entry.from.startsWith('@anthropic-ai/')));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((entry) => entry.typeOnly)).toBe(true);
    expect(files.flatMap(({ text }) => [...text.matchAll(/await import\('([^']+)'\)/g)].map((match) => match[1]))).toEqual(['@anthropic-ai/claude-agent-sdk']);
  });

  it('are loaded by session-ledger/langgraph for the base class it extends only: LangGraph itself and LangChain are types', () => {
    const found = sources('src/adapters/langgraph').flatMap(({ text }) => imports(text).filter((entry) => entry.from.startsWith('@langchain/')));
    expect(found.filter((entry) => !entry.typeOnly).map((entry) => entry.from)).toEqual(['@langchain/langgraph-checkpoint']);
    expect(found.filter((entry) => entry.typeOnly).map((entry) => entry.from)).toEqual(['@langchain/core/runnables']);
  });

  it('are optional peer dependencies, with the adapter a subpath export of its own', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(manifest.peerDependenciesMeta['@openai/agents']).toEqual({ optional: true });
    expect(manifest.peerDependencies['@openai/agents']).toBeDefined();
    expect(manifest.exports['./openai-agents'].default).toBe('./dist/src/adapters/openaiAgents/index.js');
    expect(manifest.peerDependenciesMeta['@anthropic-ai/claude-agent-sdk']).toEqual({ optional: true });
    expect(manifest.peerDependencies['@anthropic-ai/claude-agent-sdk']).toBeDefined();
    expect(manifest.exports['./claude-agent-sdk'].default).toBe('./dist/src/adapters/claudeAgentSdk/index.js');
    for (const peer of ['@langchain/langgraph', '@langchain/langgraph-checkpoint', '@langchain/core']) {
      expect(manifest.peerDependenciesMeta[peer]).toEqual({ optional: true });
      expect(manifest.peerDependencies[peer]).toBeDefined();
    }
    expect(manifest.exports['./langgraph'].default).toBe('./dist/src/adapters/langgraph/index.js');
    expect(manifest.peerDependenciesMeta['@google/adk']).toEqual({ optional: true });
    expect(manifest.peerDependencies['@google/adk']).toBeDefined();
    expect(manifest.exports['./adk'].default).toBe('./dist/src/adapters/adk/index.js');
  });

  it("are imported by session-ledger/adk alone, which extends ADK's BaseSessionService and so loads it", () => {
    const elsewhere = ['src/client', 'src/adapters/openaiAgents', 'src/adapters/claudeAgentSdk', 'src/adapters/langgraph', 'src/modules'].flatMap((folder) =>
      sources(folder).flatMap(({ file, text }) =>
        imports(text)
          .filter((entry) => entry.from.startsWith('@google/adk'))
          .map(() => file),
      ),
    );
    expect(elsewhere).toEqual([]);
    expect(sources('src/adapters/adk').some(({ text }) => imports(text).some((entry) => entry.from === '@google/adk' && !entry.typeOnly))).toBe(true);
  });
});

describe("the libraries the bench's peers part compares the ledger with", () => {
  const PEER_STORES = ['@langchain/langgraph-checkpoint-postgres', '@mikro-orm/postgresql'];

  it('are dev dependencies of the bench, never dependencies of the service', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const name of PEER_STORES) {
      expect(manifest.devDependencies[name], name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(manifest.dependencies[name], name).toBeUndefined();
      expect(manifest.peerDependencies[name], name).toBeUndefined();
    }
  });

  it('are imported by no file under src/', () => {
    const found = sources('src').flatMap(({ file, text }) =>
      [...imports(text).map((entry) => entry.from), ...[...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((match) => match[1]!)]
        .filter((from) => PEER_STORES.some((name) => from === name || from.startsWith(`${name}/`)))
        .map((from) => `${file}: ${from}`),
    );
    expect(found).toEqual([]);
  });
});
