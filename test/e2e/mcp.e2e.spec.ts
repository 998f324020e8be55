// The ledger's MCP server under the SDK's own Client, over stdio (the built CLI, `session-ledger mcp`) and over Streamable
// HTTP (POST /mcp on the service): every tool, the transcript resources and their pages, scopes, tenants, bad arguments.
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerClient } from '../../src/client/index.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { runLedgerCli } from '../support/ledgerCli.js';

const WRITER = 'mcp-writer-token-0001';
const READER = 'mcp-reader-token-0001';
const ACME = 'mcp-acme-writer-token-01';
const API_TOKEN = `writer:write=${WRITER},reader:read=${READER},acme-bot:write:acme=${ACME}`;
const BIN = resolve(import.meta.dirname, '../../bin/session-ledger.js');
const TRANSCRIPT_PAGE = 50;

type Via = 'http' | 'stdio';
type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text: string }> };

const textOf = (answer: unknown) => (answer as ToolAnswer).content.map((part) => part.text).join('');
const jsonOf = (answer: unknown): any => {
  expect((answer as ToolAnswer).isError, textOf(answer)).toBeFalsy();
  return JSON.parse(textOf(answer));
};

forEachBackend(
  'MCP server',
  (ledger) => {
    let writer: LedgerClient;
    let chatSession: string;
    let longSession: string;
    let agentSession: string;
    let acmeSession: string;
    const clients: Client[] = [];

    async function connect(via: Via, token: string): Promise<Client> {
      const transport: Transport =
        via === 'http'
          ? new StreamableHTTPClientTransport(new URL(`${ledger.service.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
          : new StdioClientTransport({
              command: process.execPath,
              args: [BIN, 'mcp', '--url', ledger.service.url],
              // The token from LEDGER_TOKEN, as a host's configuration gives it.
              env: { PATH: process.env.PATH ?? '', LEDGER_TOKEN: token },
              stderr: 'pipe',
            });
      const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      return client;
    }

    beforeAll(async () => {
      writer = ledger.newClient({ token: WRITER });
      const acme = ledger.newClient({ token: ACME });

      const chat = await writer.resolveSession({ source: { platform: 'telegram', chatType: 'dm', chatId: 'mcp-1', userName: 'Ada' } });
      chatSession = chat.sessionId;
      await writer.recordTurn(chatSession, {
        messages: [
          { role: 'user', content: 'Which invoice format did we settle on?' },
          { role: 'assistant', content: 'We settled on the zephyrine invoice format for every customer.' },
        ],
      });
      await writer.recordTurn(chatSession, {
        messages: [
          { role: 'user', content: 'Thanks' },
          { role: 'assistant', content: 'You are welcome.' },
        ],
      });

      // Thirty long messages: more than a history answer's cap holds.
      longSession = (await writer.resolveSession({ source: { platform: 'slack', chatType: 'dm', chatId: 'mcp-long' } })).sessionId;
      const long = Array.from({ length: 30 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `${index}:${'x'.repeat(3_000)}` }) as const);
      await writer.recordTurn(longSession, { messages: [...long, { role: 'user', content: 'y'.repeat(10_000) }] });

      agentSession = (await writer.putAgentSession('support', 'conversation-7', { agentName: 'helper' })).sessionId;
      await writer.appendItems(agentSession, {
        items: [
          { id: 'm1', role: 'user', content: 'What is the refund window?' },
          { id: 'm2', role: 'assistant', content: 'The quillwort refund window is 30 days.' },
          { id: 'm3', role: 'user', content: 'Great' },
        ],
      });

      acmeSession = (await acme.resolveSession({ source: { platform: 'telegram', chatType: 'dm', chatId: 'acme-1' } })).sessionId;
      await acme.recordTurn(acmeSession, { messages: [{ role: 'user', content: 'The acme plan is codenamed marigoldfish.' }] });

      // Enough conversations for two pages of resources/list.
      for (let index = 0; index < TRANSCRIPT_PAGE; index++) {
        await writer.resolveSession({ source: { platform: 'discord', chatType: 'dm', chatId: `mcp-page-${index}` } });
      }
      // The search index and the sessions index are read models: these calls wait until they hold every write above.
      await writer.search({ q: 'zephyrine' });
      await writer.listSessions({ limit: 1 });
      await acme.search({ q: 'marigoldfish' });
    }, 180_000);

    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    });

    for (const via of ['http', 'stdio'] as const) {
      describe(`over ${via}`, () => {
        let mcp: Client;
        beforeAll(async () => {
          mcp = await connect(via, WRITER);
        }, 120_000);

        it('lists every tool, each with a description and a JSON Schema for its arguments', async () => {
          const { tools } = await mcp.listTools();
          expect(tools.map((tool) => tool.name).sort()).toEqual(
            ['create_checkpoint', 'fork_session', 'list_sessions', 'read_history', 'rollback_session', 'search_sessions', 'show_session'].sort(),
          );
          for (const tool of tools) {
            expect(tool.description!.length, tool.name).toBeGreaterThan(200);
            expect(tool.description, tool.name).toMatch(/characters/);
            expect(tool.inputSchema.type).toBe('object');
          }
          const search = tools.find((tool) => tool.name === 'search_sessions')!;
          expect(search.inputSchema.required).toEqual(['query']);
          expect(Object.keys(search.inputSchema.properties!)).toEqual(expect.arrayContaining(['query', 'platform', 'sessionId', 'since', 'until', 'cursor']));
          expect(tools.find((tool) => tool.name === 'rollback_session')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
        });

        it('search_sessions finds transcript messages and items, with their session ids and item ids', async () => {
          const found = jsonOf(await mcp.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine' } }));
          expect(found.hits).toHaveLength(1);
          expect(found.hits[0]).toMatchObject({ sessionId: chatSession, platform: 'telegram', turnIndex: 1, messageIndex: 1, role: 'assistant' });
          expect(found.hits[0].snippet).toContain('>>>zephyrine<<<');

          const item = jsonOf(await mcp.callTool({ name: 'search_sessions', arguments: { query: 'quillwort', source: 'items' } }));
          expect(item.hits[0]).toMatchObject({ sessionId: agentSession, itemId: 'm2', itemIndex: 1 });

          const filtered = jsonOf(await mcp.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine', platform: 'slack' } }));
          expect(filtered.hits).toEqual([]);
          const future = jsonOf(await mcp.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine', since: '2999-01-01T00:00:00Z' } }));
          expect(future.hits).toEqual([]);
          const grouped = jsonOf(await mcp.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine OR quillwort', bySession: true } }));
          expect(grouped.sessions.map((session: { sessionId: string }) => session.sessionId).sort()).toEqual([chatSession, agentSession].sort());
        });

        it('read_history reads the newest messages, pages back with nextBefore, and reads an item history', async () => {
          const newest = jsonOf(await mcp.callTool({ name: 'read_history', arguments: { sessionId: chatSession, limit: 2 } }));
          expect(newest).toMatchObject({ source: 'transcript', total: 4, hasOlder: true, truncated: false });
          expect(newest.entries.map((entry: { content: string }) => entry.content)).toEqual(['Thanks', 'You are welcome.']);
          const older = jsonOf(await mcp.callTool({ name: 'read_history', arguments: { sessionId: chatSession, limit: 2, before: newest.nextBefore } }));
          expect(older.entries.map((entry: { role: string }) => entry.role)).toEqual(['user', 'assistant']);
          expect(older.entries[1].content).toContain('zephyrine');
          expect(older).toMatchObject({ hasOlder: false, nextBefore: null });

          const items = jsonOf(await mcp.callTool({ name: 'read_history', arguments: { sessionId: agentSession, limit: 2 } }));
          expect(items).toMatchObject({ source: 'items', total: 3, hasOlder: true, nextBefore: 'm2' });
          expect(items.entries.map((entry: { id: string }) => entry.id)).toEqual(['m2', 'm3']);
          const first = jsonOf(await mcp.callTool({ name: 'read_history', arguments: { sessionId: agentSession, before: 'm2' } }));
          expect(first.entries.map((entry: { item: { content: string } }) => entry.item.content)).toEqual(['What is the refund window?']);
        });

        it('keeps a history answer under its cap: long contents clipped, the oldest entries left out and reachable', async () => {
          const answer = await mcp.callTool({ name: 'read_history', arguments: { sessionId: longSession, limit: 100 } });
          expect(textOf(answer).length).toBeLessThanOrEqual(24_000);
          const page = jsonOf(answer);
          expect(page.truncated).toBe(true);
          expect(page.hasOlder).toBe(true);
          const last = page.entries[page.entries.length - 1];
          expect(last.content).toMatch(/^y{4000}… \[6000 more characters\]$/);
          // nextBefore reaches the entries the cap left out, down to the first.
          const seen = new Set<number>(page.entries.map((entry: { index: number }) => entry.index));
          let before = page.nextBefore;
          while (before !== null) {
            const older = jsonOf(await mcp.callTool({ name: 'read_history', arguments: { sessionId: longSession, limit: 100, before } }));
            for (const entry of older.entries) seen.add(entry.index);
            before = older.nextBefore;
          }
          expect(seen.size).toBe(31);
        });

        it('show_session shows the session, its checkpoints and its tree; list_sessions lists conversations and a namespace', async () => {
          const shown = jsonOf(await mcp.callTool({ name: 'show_session', arguments: { sessionId: chatSession } }));
          expect(shown.session).toMatchObject({ sessionId: chatSession, status: 'active', turnCount: 2, messageCount: 4 });
          // Each completed turn is a checkpoint (AUTO_CHECKPOINT).
          expect(shown.checkpoints.items.length).toBeGreaterThanOrEqual(2);
          expect(shown.checkpoints.items[0]).toMatchObject({ auto: true, onCurrentTimeline: true });
          expect(shown.tree.nodes[0]).toMatchObject({ sessionId: chatSession, kind: 'root' });

          const conversations = jsonOf(await mcp.callTool({ name: 'list_sessions', arguments: { platform: 'telegram' } }));
          expect(conversations.sessions.map((session: { sessionId: string }) => session.sessionId)).toContain(chatSession);
          expect(conversations.sessions.every((session: { platform: string }) => session.platform === 'telegram')).toBe(true);
          const namespace = jsonOf(await mcp.callTool({ name: 'list_sessions', arguments: { namespace: 'support' } }));
          expect(namespace.sessions).toEqual([expect.objectContaining({ sessionId: agentSession, externalId: 'conversation-7', itemCount: 3 })]);
          const paged = jsonOf(await mcp.callTool({ name: 'list_sessions', arguments: { limit: 2 } }));
          expect(paged.sessions).toHaveLength(2);
          const next = jsonOf(await mcp.callTool({ name: 'list_sessions', arguments: { limit: 2, cursor: paged.nextCursor } }));
          expect(next.sessions[0].sessionId).not.toBe(paged.sessions[0].sessionId);
        });

        it('create_checkpoint, rollback_session and fork_session change the ledger, and a retried write with its key is done once', async () => {
          const session = (await writer.resolveSession({ source: { platform: 'telegram', chatType: 'dm', chatId: `mcp-write-${via}` } })).sessionId;
          await writer.recordTurn(session, { messages: [{ role: 'user', content: 'first' }] });
          const checkpoint = jsonOf(
            await mcp.callTool({ name: 'create_checkpoint', arguments: { sessionId: session, label: 'before the experiment', idempotencyKey: `cp-${via}` } }),
          );
          expect(checkpoint).toMatchObject({ sessionId: session, label: 'before the experiment', checkpointId: expect.stringMatching(/^cp-\d+$/) });
          const again = jsonOf(
            await mcp.callTool({ name: 'create_checkpoint', arguments: { sessionId: session, label: 'before the experiment', idempotencyKey: `cp-${via}` } }),
          );
          expect(again.checkpointId).toBe(checkpoint.checkpointId);
          const labelled = (await writer.listCheckpoints(session)).checkpoints.filter((listed) => listed.label === 'before the experiment');
          expect(labelled).toHaveLength(1);

          await writer.recordTurn(session, { messages: [{ role: 'user', content: 'a bad turn' }] });
          const rolledBack = jsonOf(await mcp.callTool({ name: 'rollback_session', arguments: { sessionId: session, checkpointId: checkpoint.checkpointId } }));
          expect(rolledBack).toMatchObject({ sessionId: session, checkpointId: checkpoint.checkpointId });
          expect((await writer.getTranscript(session)).messages.map((message) => message.content)).toEqual(['first']);

          const fork = jsonOf(
            await mcp.callTool({ name: 'fork_session', arguments: { sessionId: session, checkpointId: checkpoint.checkpointId, agentName: 'branch-b' } }),
          );
          expect(fork).toMatchObject({ parentSessionId: session, forkOf: { sessionId: session, checkpointId: checkpoint.checkpointId } });
          expect((await writer.getTranscript(fork.sessionId)).messages.map((message) => message.content)).toEqual(['first']);
          const tree = jsonOf(await mcp.callTool({ name: 'show_session', arguments: { sessionId: session } })).tree;
          expect(tree.nodes).toEqual(expect.arrayContaining([expect.objectContaining({ sessionId: fork.sessionId, kind: 'fork', agentName: 'branch-b' })]));
        });

        it('lists transcripts as resources page by page, and reads one', async () => {
          const first = await mcp.listResources();
          expect(first.resources).toHaveLength(TRANSCRIPT_PAGE);
          expect(first.nextCursor).toBeTruthy();
          const second = await mcp.listResources({ cursor: first.nextCursor });
          const uris = [...first.resources, ...second.resources].map((resource) => resource.uri);
          expect(new Set(uris).size).toBe(uris.length);
          expect(uris).toContain(`ledger://sessions/${chatSession}/transcript`);
          const templates = await mcp.listResourceTemplates();
          expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['ledger://sessions/{sessionId}/transcript']);
          const read = await mcp.readResource({ uri: `ledger://sessions/${chatSession}/transcript` });
          const transcript = JSON.parse((read.contents[0] as { text: string }).text);
          expect(transcript.messages.map((message: { content: string }) => message.content)).toContain(
            'We settled on the zephyrine invoice format for every customer.',
          );
          expect(transcript.omittedOlder).toBe(0);
        });

        it('answers bad arguments with a tool error that names what is wrong, and keeps serving', async () => {
          const badId = await mcp.callTool({ name: 'read_history', arguments: { sessionId: 'not a session id!' } });
          expect(badId.isError).toBe(true);
          expect(textOf(badId)).toMatch(/sessionId/);
          const badLimit = await mcp.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine', limit: 0 } });
          expect(badLimit.isError).toBe(true);
          expect(textOf(badLimit)).toMatch(/limit/);
          const missing = await mcp.callTool({ name: 'create_checkpoint', arguments: { sessionId: chatSession } });
          expect(missing.isError).toBe(true);
          expect(textOf(missing)).toMatch(/label/);
          const badTime = await mcp.callTool({ name: 'search_sessions', arguments: { query: 'x', since: 'yesterday' } });
          expect(textOf(badTime)).toMatch(/since/);
          const unknown = await mcp.callTool({ name: 'show_session', arguments: { sessionId: 'no_such_session' } });
          expect(unknown.isError).toBe(true);
          expect(textOf(unknown)).toMatch(/SESSION_NOT_FOUND/);
          const badCursor = await mcp.callTool({ name: 'read_history', arguments: { sessionId: chatSession, before: 'twelve' } });
          expect(textOf(badCursor)).toMatch(/before/);
          // Still serving.
          expect(jsonOf(await mcp.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine' } })).hits).toHaveLength(1);
        });

        it('gives a read token the read tools only, and its write is refused with nothing written', async () => {
          const reader = await connect(via, READER);
          const names = (await reader.listTools()).tools.map((tool) => tool.name).sort();
          expect(names).toEqual(['list_sessions', 'read_history', 'search_sessions', 'show_session']);
          const before = (await writer.listCheckpoints(chatSession)).checkpoints.length;
          const refused = await reader.callTool({ name: 'create_checkpoint', arguments: { sessionId: chatSession, label: 'not allowed' } });
          expect(refused.isError).toBe(true);
          expect(textOf(refused)).toMatch(/create_checkpoint/);
          expect((await writer.listCheckpoints(chatSession)).checkpoints.length).toBe(before);
          expect(jsonOf(await reader.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine' } })).hits).toHaveLength(1);
        });

        it("never shows a tenant another tenant's sessions, through any tool or resource", async () => {
          const acme = await connect(via, ACME);
          expect(jsonOf(await acme.callTool({ name: 'search_sessions', arguments: { query: 'zephyrine OR quillwort' } })).hits).toEqual([]);
          expect(jsonOf(await acme.callTool({ name: 'search_sessions', arguments: { query: 'marigoldfish' } })).hits).toEqual([
            expect.objectContaining({ sessionId: acmeSession }),
          ]);
          for (const [name, args] of [
            ['show_session', { sessionId: chatSession }],
            ['read_history', { sessionId: chatSession }],
            ['read_history', { sessionId: agentSession, source: 'items' }],
            ['create_checkpoint', { sessionId: chatSession, label: 'intrusion' }],
            ['rollback_session', { sessionId: chatSession, checkpointId: 'cp-1' }],
            ['fork_session', { sessionId: chatSession }],
          ] as const) {
            const answer = await acme.callTool({ name, arguments: args });
            expect(answer.isError, name).toBe(true);
            expect(textOf(answer), name).toMatch(/NOT_FOUND/);
          }
          expect(
            jsonOf(await acme.callTool({ name: 'list_sessions', arguments: {} })).sessions.map((session: { sessionId: string }) => session.sessionId),
          ).toEqual([acmeSession]);
          expect(jsonOf(await acme.callTool({ name: 'list_sessions', arguments: { namespace: 'support' } })).sessions).toEqual([]);
          expect((await acme.listResources()).resources.map((resource) => resource.uri)).toEqual([`ledger://sessions/${acmeSession}/transcript`]);
          await expect(acme.readResource({ uri: `ledger://sessions/${chatSession}/transcript` })).rejects.toThrow(/SESSION_NOT_FOUND/);
          // And the other way round.
          expect(jsonOf(await mcp.callTool({ name: 'search_sessions', arguments: { query: 'marigoldfish' } })).hits).toEqual([]);
          expect(textOf(await mcp.callTool({ name: 'show_session', arguments: { sessionId: acmeSession } }))).toMatch(/SESSION_NOT_FOUND/);
        });
      });
    }

    it('answers /mcp without a valid token 401 like the API, and GET /mcp 405', async () => {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const headers = { accept: 'application/json, text/event-stream' };
      const anonymous = await ledger.service.request('POST', '/mcp', { body: initialize, headers });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
      const wrong = await ledger.service.request('POST', '/mcp', {
        body: initialize,
        headers: { ...headers, authorization: 'Bearer not-a-token-of-this-service' },
      });
      expect(wrong.status).toBe(401);
      const stream = await ledger.service.request('GET', '/mcp', { headers: { ...headers, authorization: `Bearer ${WRITER}` } });
      expect(stream.status).toBe(405);
      expect(stream.headers.get('allow')).toBe('POST');
    });

    it('session-ledger mcp refuses at start a token the ledger refuses (exit 2) and a missing --url (exit 2), on stderr', async () => {
      const refused = await runLedgerCli({}, ['mcp', '--url', ledger.service.url, '--token', 'not-a-token-of-this-service']);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(JSON.parse(refused.stderr).error.code).toBe('UNAUTHORIZED');
      const noUrl = await runLedgerCli({}, ['mcp']);
      expect(noUrl.code).toBe(2);
      expect(noUrl.stderr).toMatch(/LEDGER_URL/);
    });

    it('GET /v1/whoami answers the token as the service sees it', async () => {
      expect(await writer.whoami()).toEqual({ name: 'writer', scope: 'write', tenant: null });
      expect(await ledger.newClient({ token: ACME }).whoami()).toEqual({ name: 'acme-bot', scope: 'write', tenant: 'acme' });
      expect((await refusalOf(ledger.client.whoami())).status).toBe(401);
    });
  },
  { env: { API_TOKEN, JOB_TICK_INTERVAL_MS: '0' } },
);
