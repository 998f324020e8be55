// `session-ledger/openai-agents` under the SDK's own Runner and scripted model: three turns with a tool call, a
// restart of the ledger, and a fourth turn whose model call sees the whole history; the Session methods one by one;
// namespaces apart; a ledger that is down fails the call with its URL.
import { Agent, type AgentInputItem, run, tool } from '@openai/agents-core';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents-core/testing';
import { expect, it } from 'vitest';
import { LedgerSession, LedgerUnavailableError } from '../../src/adapters/openaiAgents/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';

const TOKEN = 'openai-agents-test-token';

const weather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
  execute: async (input) => `sunny in ${(input as { city: string }).city}`,
});

/** The text of the user and assistant messages and the tool calls and results of a history, in order. */
function transcript(items: readonly AgentInputItem[]): string[] {
  return items.map((item) => {
    const entry = item as { type?: string; role?: string; content?: unknown; name?: string; output?: unknown };
    if (entry.type === 'function_call') return `call ${entry.name}`;
    if (entry.type === 'function_call_result') return `result ${JSON.stringify(entry.output)}`;
    const content = entry.content;
    const text = typeof content === 'string' ? content : ((content as Array<{ text?: string }> | undefined)?.map((part) => part.text ?? '').join('') ?? '');
    return `${entry.role}: ${text}`;
  });
}

forEachBackend(
  'session-ledger/openai-agents',
  (ledger) => {
    it("keeps a Runner's history across three turns with a tool call and a restart of the ledger", { timeout: 120_000 }, async () => {
      const model = new ScriptedModel([
        [functionCall('get_weather', { city: 'Paris' }, { callId: 'call_1' })],
        [assistantMessage('It is sunny in Paris.')],
        [assistantMessage('Rome is sunny too.')],
        [assistantMessage('You are welcome.')],
      ]);
      const agent = new Agent({ name: 'forecaster', instructions: 'Answer about the weather.', model, tools: [weather] });
      const session = new LedgerSession({ url: ledger.service.url, token: TOKEN, sessionId: `chat-${ledger.backend}`, agentName: 'forecaster' });
      expect((await run(agent, 'What is the weather in Paris?', { session })).finalOutput).toBe('It is sunny in Paris.');
      await run(agent, 'And in Rome?', { session });
      await run(agent, 'Thanks!', { session });
      model.assertComplete();
      const before = await session.getItems();
      expect(transcript(before)).toEqual([
        'user: What is the weather in Paris?',
        'call get_weather',
        expect.stringMatching(/^result .*sunny in Paris/),
        'assistant: It is sunny in Paris.',
        'user: And in Rome?',
        'assistant: Rome is sunny too.',
        'user: Thanks!',
        'assistant: You are welcome.',
      ]);

      await ledger.restart();

      // Another process after the restart: the same session id, the whole history under it.
      let seen: AgentInputItem[] = [];
      const after = new ScriptedModel([
        modelResponder((call) => {
          seen = call.request.input as AgentInputItem[];
          return [assistantMessage('You first asked about Paris.')];
        }),
      ]);
      const resumed = new LedgerSession({ url: ledger.service.url, token: TOKEN, sessionId: `chat-${ledger.backend}` });
      const fourth = await run(
        new Agent({ name: 'forecaster', instructions: 'Answer about the weather.', model: after, tools: [weather] }),
        'What did I ask first?',
        {
          session: resumed,
        },
      );
      expect(fourth.finalOutput).toBe('You first asked about Paris.');
      expect(transcript(seen)).toEqual([...transcript(before), 'user: What did I ask first?']);
      expect(await resumed.getItems()).toHaveLength(10);
      expect(transcript(await resumed.getItems(2))).toEqual(['user: What did I ask first?', 'assistant: You first asked about Paris.']);
      // And a ledger session like any other: its item count, audit trail and console page.
      const ledgerId = await resumed.ledgerSessionId();
      const ledgerView = await ledger.service.request('GET', `/v1/sessions/${ledgerId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ledgerView.body).toMatchObject({ sessionId: ledgerId, agentName: 'forecaster', status: 'active' });
    });

    it('pops, limits, clears and creates a session when given no id', async () => {
      const session = new LedgerSession({ url: ledger.service.url, token: TOKEN });
      const id = await session.getSessionId();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await session.getItems()).toEqual([]);
      const items: AgentInputItem[] = [
        { role: 'user', content: 'one' },
        { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'two' }] },
        { type: 'function_call', callId: 'c1', name: 'f', arguments: '{"a":1}', status: 'completed' },
      ];
      await session.addItems(items);
      expect(await session.getItems()).toEqual(items);
      expect(await session.getItems(2)).toEqual(items.slice(1));
      expect(await session.popItem()).toEqual(items[2]);
      expect(await session.getItems()).toEqual(items.slice(0, 2));
      // The same session from its id, as another process would open it.
      const again = new LedgerSession({ url: ledger.service.url, token: TOKEN, sessionId: id });
      expect(await again.getItems()).toEqual(items.slice(0, 2));
      await again.clearSession();
      expect(await session.getItems()).toEqual([]);
      expect(await session.popItem()).toBeUndefined();
      // More than one page, in order.
      const many: AgentInputItem[] = Array.from({ length: 1_250 }, (_, index) => ({ role: 'user', content: `m${index}` }));
      await session.addItems(many);
      const read = await session.getItems();
      expect(read).toHaveLength(1_250);
      expect(read.at(0)).toEqual(many[0]);
      expect(read.at(-1)).toEqual(many[1_249]);
      expect(await session.getItems(1_100)).toEqual(many.slice(150));
    });

    it('keeps namespaces apart', async () => {
      const a = new LedgerSession({ url: ledger.service.url, token: TOKEN, namespace: 'tenant-a', sessionId: 'shared-id' });
      const b = new LedgerSession({ url: ledger.service.url, token: TOKEN, namespace: 'tenant-b', sessionId: 'shared-id' });
      await a.addItems([{ role: 'user', content: 'only in a' }]);
      expect(await b.getItems()).toEqual([]);
      expect(await a.getItems()).toHaveLength(1);
      expect(await a.ledgerSessionId()).not.toBe(await b.ledgerSessionId());
    });

    it('goes on in an empty session when another process deleted it, for reads and writes alike', async () => {
      const reader = new LedgerSession({ url: ledger.service.url, token: TOKEN, sessionId: 'deleted-elsewhere' });
      const writer = new LedgerSession({ url: ledger.service.url, token: TOKEN, sessionId: 'deleted-elsewhere' });
      await writer.addItems([{ role: 'user', content: 'before the deletion' }]);
      expect(await reader.getItems()).toHaveLength(1);
      const first = await reader.ledgerSessionId();
      const deleted = await ledger.service.request('DELETE', `/v1/namespaces/openai-agents/sessions/deleted-elsewhere`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(deleted.status, deleted.text).toBe(200);
      // Both objects still hold the deleted session's id: the read sees it is gone, the write is refused and goes on.
      expect(await reader.getItems()).toEqual([]);
      expect(await reader.ledgerSessionId()).not.toBe(first);
      await writer.addItems([{ role: 'user', content: 'after the deletion' }]);
      expect(await writer.ledgerSessionId()).toBe(await reader.ledgerSessionId());
      expect(await reader.getItems()).toEqual([{ role: 'user', content: 'after the deletion' }]);
    });

    it('fails the call with an error naming the URL when the ledger is down, never an empty history', async () => {
      const url = 'http://127.0.0.1:9';
      const session = new LedgerSession({ url, sessionId: 'nobody', retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 } });
      const failure = await session.getItems().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(LedgerUnavailableError);
      expect((failure as Error).message).toContain(url);
      await expect(session.addItems([{ role: 'user', content: 'x' }])).rejects.toThrow(url);
    });
  },
  { restartable: true, env: { API_TOKEN: TOKEN } },
);
