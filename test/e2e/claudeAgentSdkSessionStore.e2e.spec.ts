// `session-ledger/claude-agent-sdk` against the real service: a Claude Code transcript (with a subagent's) imported by
// the SDK's own importSessionToStore and loaded back; every rule of the SDK's SessionStore contract, each on a fresh
// store; retries under one Idempotency-Key; namespaces apart; a ledger that is down fails the call with its URL.
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deleteSession,
  getSessionMessages,
  importSessionToStore,
  InMemorySessionStore,
  listSessions,
  listSubagents,
  type SessionKey,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LedgerSessionStore, LedgerUnavailableError } from '../../src/adapters/claudeAgentSdk/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

const TOKEN = 'claude-agent-sdk-test-token';
const FIXTURE = join(import.meta.dirname, '../fixtures/claude-code');
const SESSION_ID = '8d0f4c2a-51b7-4f0e-9a63-2c7e5d1b9f40';
const SUBPATH = 'subagents/agent-a7f3e2';
/** The project directory the fixture's session ran in, and the project key Claude Code derives from it. */
const PROJECT_DIR = '/home/dev/weather-app';
const PROJECT_KEY = '-home-dev-weather-app';

const lines = async (file: string): Promise<SessionStoreEntry[]> =>
  (await readFile(join(FIXTURE, file), 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SessionStoreEntry);

/** A config directory holding the fixture where Claude Code keeps a project's transcripts. */
async function claudeConfigDir(): Promise<string> {
  const configDir = await mkdtemp(join(tmpdir(), 'ledger-claude-config-'));
  await cp(FIXTURE, join(configDir, 'projects', PROJECT_KEY), { recursive: true });
  return configDir;
}

forEachBackend(
  'session-ledger/claude-agent-sdk',
  (ledger) => {
    let configDir: string;
    const previousConfigDir = process.env.CLAUDE_CONFIG_DIR;
    /** A store of its own namespace: nothing another test wrote is seen. */
    const freshStore = (options: { retry?: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number }; fetch?: typeof fetch } = {}) =>
      new LedgerSessionStore({ url: ledger.service.url, token: TOKEN, namespace: `claude-${randomUUID().slice(0, 8)}`, ...options });

    beforeAll(async () => {
      configDir = await claudeConfigDir();
      process.env.CLAUDE_CONFIG_DIR = configDir;
    });
    afterAll(async () => {
      if (previousConfigDir === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = previousConfigDir;
      await rm(configDir, { recursive: true, force: true });
    });

    it("imports a Claude Code transcript with the SDK's importSessionToStore and loads it back deep-equal", async () => {
      const store = freshStore();
      await importSessionToStore(SESSION_ID, store, { dir: PROJECT_DIR });
      const main = await lines(`${SESSION_ID}.jsonl`);
      const subagent = await lines(`${SESSION_ID}/${SUBPATH}.jsonl`);
      const meta = JSON.parse(await readFile(join(FIXTURE, SESSION_ID, `${SUBPATH}.meta.json`), 'utf8')) as Record<string, unknown>;

      expect(await store.load({ projectKey: PROJECT_KEY, sessionId: SESSION_ID })).toEqual(main);
      expect(await store.load({ projectKey: PROJECT_KEY, sessionId: SESSION_ID, subpath: SUBPATH })).toEqual([
        ...subagent,
        { type: 'agent_metadata', ...meta },
      ]);
      expect(await store.listSubkeys({ projectKey: PROJECT_KEY, sessionId: SESSION_ID })).toEqual([SUBPATH]);
      const [listed, ...others] = await store.listSessions(PROJECT_KEY);
      expect(others).toEqual([]);
      expect(listed!.sessionId).toBe(SESSION_ID);
      expect(Number.isInteger(listed!.mtime) && Math.abs(Date.now() - listed!.mtime) < 60_000).toBe(true);

      // The summaries are the SDK's own fold of the same entries: what its in-memory store keeps for this import.
      const reference = new InMemorySessionStore();
      await importSessionToStore(SESSION_ID, reference, { dir: PROJECT_DIR });
      const [summary] = await store.listSessionSummaries(PROJECT_KEY);
      const [expected] = await reference.listSessionSummaries(PROJECT_KEY);
      expect(summary).toEqual({ sessionId: SESSION_ID, mtime: listed!.mtime, data: expected!.data });

      // A second import writes no entry with a uuid twice; entries without one are appended as they come.
      await importSessionToStore(SESSION_ID, store, { dir: PROJECT_DIR });
      expect(await store.load({ projectKey: PROJECT_KEY, sessionId: SESSION_ID })).toEqual([...main, ...main.filter((entry) => entry.uuid === undefined)]);
      expect(await store.load({ projectKey: PROJECT_KEY, sessionId: SESSION_ID, subpath: SUBPATH })).toEqual([
        ...subagent,
        { type: 'agent_metadata', ...meta },
        { type: 'agent_metadata', ...meta },
      ]);
    });

    it("serves the SDK's own store-backed reads and deletion: listSessions, getSessionMessages, listSubagents, deleteSession", async () => {
      const store = freshStore();
      await importSessionToStore(SESSION_ID, store, { dir: PROJECT_DIR });
      const [info, ...others] = await listSessions({ dir: PROJECT_DIR, sessionStore: store });
      expect(others).toEqual([]);
      expect(info).toMatchObject({ sessionId: SESSION_ID, summary: 'DST bug in nextDay', customTitle: 'DST bug in nextDay', gitBranch: 'main' });
      const messages = await getSessionMessages(SESSION_ID, { dir: PROJECT_DIR, sessionStore: store });
      expect(messages.map((entry) => entry.uuid)).toEqual(
        (await lines(`${SESSION_ID}.jsonl`)).filter((entry) => entry.type === 'user' || entry.type === 'assistant').map((entry) => entry.uuid),
      );
      expect(await listSubagents(SESSION_ID, { dir: PROJECT_DIR, sessionStore: store })).toEqual(['a7f3e2']);

      await deleteSession(SESSION_ID, { dir: PROJECT_DIR, sessionStore: store });
      expect(await store.load({ projectKey: PROJECT_KEY, sessionId: SESSION_ID })).toBeNull();
      expect(await store.load({ projectKey: PROJECT_KEY, sessionId: SESSION_ID, subpath: SUBPATH })).toBeNull();
      expect(await listSessions({ dir: PROJECT_DIR, sessionStore: store })).toEqual([]);
    });

    it('answers null for a key never written, and keeps entries deep-equal and in append order', async () => {
      const store = freshStore();
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      expect(await store.load(key)).toBeNull();
      expect(await store.load({ ...key, subpath: 'subagents/agent-x' })).toBeNull();
      expect(await store.listSessions('proj')).toEqual([]);
      expect(await store.listSubkeys(key)).toEqual([]);

      const odd: SessionStoreEntry = {
        type: 'assistant',
        uuid: 'u-odd',
        timestamp: '2026-12-01T10:00:00.000Z',
        nested: { z: 1, a: [null, true, 1.5, -0, 'é ✓ 🚀', { '': '' }], empty: {}, none: [] },
        text: 'line\nbreak "quoted" \\ back\u0001slash',
      };
      await store.append(key, [{ type: 'user', uuid: 'u-1', message: { role: 'user', content: 'one' } }]);
      await store.append(key, [odd, { type: 'tag', tag: 'first' }]);
      await store.append(key, [{ type: 'user', uuid: 'u-2', message: { role: 'user', content: 'two' } }]);
      expect(await store.load(key)).toEqual([
        { type: 'user', uuid: 'u-1', message: { role: 'user', content: 'one' } },
        { ...odd, nested: { ...(odd.nested as object), a: [null, true, 1.5, 0, 'é ✓ 🚀', { '': '' }] } },
        { type: 'tag', tag: 'first' },
        { type: 'user', uuid: 'u-2', message: { role: 'user', content: 'two' } },
      ]);
      // The same sessionId in another project is another transcript.
      expect(await store.load({ projectKey: 'proj/other', sessionId: key.sessionId })).toBeNull();
    });

    it('takes uuid as the idempotency key and appends entries without one as they come', async () => {
      const store = freshStore();
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      await store.append(key, [
        { type: 'user', uuid: 'u-1', message: 'first' },
        { type: 'mode', mode: 'plan' },
      ]);
      await store.append(key, [
        { type: 'user', uuid: 'u-1', message: 'a replay never overwrites' },
        { type: 'mode', mode: 'plan' },
        { type: 'assistant', uuid: 'a-1', message: 'new' },
        { type: 'assistant', uuid: 'a-1', message: 'twice in one batch' },
      ]);
      expect(await store.load(key)).toEqual([
        { type: 'user', uuid: 'u-1', message: 'first' },
        { type: 'mode', mode: 'plan' },
        { type: 'mode', mode: 'plan' },
        { type: 'assistant', uuid: 'a-1', message: 'new' },
      ]);
    });

    it('keeps subagent transcripts apart, lists them, and deletes them with their session', async () => {
      const store = freshStore();
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      const kept: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      await store.append(key, [{ type: 'user', uuid: 'm-1' }]);
      await store.append({ ...key, subpath: 'subagents/agent-a' }, [{ type: 'user', uuid: 'm-1', isSidechain: true }]);
      await store.append({ ...key, subpath: 'subagents/workflows/w1/agent-b' }, [{ type: 'user', uuid: 's-b' }]);
      await store.append(kept, [{ type: 'user', uuid: 'k-1' }]);
      await store.append({ ...kept, subpath: 'subagents/agent-c' }, [{ type: 'user', uuid: 'k-c' }]);

      expect(await store.load(key)).toEqual([{ type: 'user', uuid: 'm-1' }]);
      expect(await store.load({ ...key, subpath: 'subagents/agent-a' })).toEqual([{ type: 'user', uuid: 'm-1', isSidechain: true }]);
      expect((await store.listSubkeys(key)).sort()).toEqual(['subagents/agent-a', 'subagents/workflows/w1/agent-b']);
      expect((await store.listSessions('proj')).map((session) => session.sessionId).sort()).toEqual([key.sessionId, kept.sessionId].sort());

      // Deleting a subagent transcript alone leaves its session.
      await store.delete({ ...key, subpath: 'subagents/agent-a' });
      expect(await store.load({ ...key, subpath: 'subagents/agent-a' })).toBeNull();
      expect(await store.listSubkeys(key)).toEqual(['subagents/workflows/w1/agent-b']);
      expect(await store.load(key)).toEqual([{ type: 'user', uuid: 'm-1' }]);

      // Deleting a session deletes its subagent transcripts, and nothing of another session.
      await store.delete(key);
      expect(await store.load(key)).toBeNull();
      expect(await store.load({ ...key, subpath: 'subagents/workflows/w1/agent-b' })).toBeNull();
      expect(await store.listSubkeys(key)).toEqual([]);
      expect((await store.listSessions('proj')).map((session) => session.sessionId)).toEqual([kept.sessionId]);
      expect(await store.listSubkeys(kept)).toEqual(['subagents/agent-c']);
      await store.delete(key);

      // Written again after a delete, the transcript starts empty: a deleted history never comes back.
      await store.append(key, [{ type: 'user', uuid: 'm-2' }]);
      expect(await store.load(key)).toEqual([{ type: 'user', uuid: 'm-2' }]);

      // Deleted by another store (another host) while this one keeps writing: the next append starts it again.
      const elsewhere = new LedgerSessionStore({ url: ledger.service.url, token: TOKEN, namespace: store.namespace });
      await elsewhere.delete(key);
      await store.append(key, [{ type: 'user', uuid: 'm-3' }]);
      expect(await elsewhere.load(key)).toEqual([{ type: 'user', uuid: 'm-3' }]);
    });

    it('stamps mtime in integer epoch milliseconds, moving with every append', async () => {
      const store = freshStore();
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      const before = Date.now();
      await store.append(key, [{ type: 'user', uuid: 'u-1', timestamp: '2001-01-01T00:00:00.000Z' }]);
      const [first] = await store.listSessions('proj');
      expect(Number.isInteger(first!.mtime)).toBe(true);
      expect(first!.mtime).toBeGreaterThanOrEqual(before - 5_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.append(key, [{ type: 'user', uuid: 'u-2' }]);
      const [second] = await store.listSessions('proj');
      expect(second!.mtime).toBeGreaterThan(first!.mtime);
      const [summary] = await store.listSessionSummaries('proj');
      expect(summary!.mtime).toBe(second!.mtime);
    });

    it('loads a long history with large entries whole and in order', { timeout: 120_000 }, async () => {
      const store = freshStore();
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      const many = Array.from({ length: 1_250 }, (_, index) => ({ type: 'user', uuid: `u-${index}`, message: `m${index}` }));
      const large = Array.from({ length: 6 }, (_, index) => ({ type: 'user', uuid: `big-${index}`, toolUseResult: 'x'.repeat(200_000) }));
      await store.append(key, many);
      await store.append(key, large);
      const loaded = await store.load(key);
      expect(loaded).toHaveLength(1_256);
      expect(loaded!.slice(0, 1_250)).toEqual(many);
      expect(loaded!.slice(1_250)).toEqual(large);
    });

    it('retries a write whose answer was lost under the same Idempotency-Key, so nothing is written twice', async () => {
      const keys: string[] = [];
      let dropped = false;
      const losingFetch: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method === 'POST' && String(input).endsWith('/items')) {
          keys.push(new Headers(init.headers).get('idempotency-key') ?? '');
          if (!dropped) {
            dropped = true;
            throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
          }
        }
        return response;
      };
      const store = freshStore({ fetch: losingFetch, retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 } });
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      await store.append(key, [
        { type: 'custom-title', customTitle: 'no uuid' },
        { type: 'user', uuid: 'u-1' },
      ]);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect(await store.load(key)).toEqual([
        { type: 'custom-title', customTitle: 'no uuid' },
        { type: 'user', uuid: 'u-1' },
      ]);
    });

    it('keeps namespaces apart', async () => {
      const a = freshStore();
      const b = freshStore();
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      await a.append(key, [{ type: 'user', uuid: 'only-in-a' }]);
      await a.append({ ...key, subpath: 'subagents/agent-a' }, [{ type: 'user', uuid: 'sub-a' }]);
      expect(await b.load(key)).toBeNull();
      expect(await b.listSessions('proj')).toEqual([]);
      expect(await b.listSubkeys(key)).toEqual([]);
      await b.delete(key);
      expect(await a.load(key)).toEqual([{ type: 'user', uuid: 'only-in-a' }]);
      expect(await a.ledgerSessionId(key)).toMatch(/^ag_[0-9a-f]{32}$/);
      expect(await b.ledgerSessionId(key)).toBeUndefined();
    });

    it('fails the call with an error naming the URL when the ledger is down, never an empty history', async () => {
      const url = 'http://127.0.0.1:9';
      const store = new LedgerSessionStore({ url, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 } });
      const key: SessionKey = { projectKey: 'proj', sessionId: randomUUID() };
      const failure = await store.load(key).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(LedgerUnavailableError);
      expect((failure as Error).message).toContain(url);
      await expect(store.append(key, [{ type: 'user', uuid: 'u-1' }])).rejects.toThrow(url);
      await expect(store.listSessions('proj')).rejects.toThrow(url);
      await expect(store.listSubkeys(key)).rejects.toThrow(url);
      await expect(store.delete(key)).rejects.toThrow(url);
    });
  },
  { env: { API_TOKEN: TOKEN } },
);
