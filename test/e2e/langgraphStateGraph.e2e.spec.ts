// A real LangGraph StateGraph (MessagesAnnotation, plain-function nodes, a subgraph that interrupts) on
// session-ledger/langgraph: an interrupt resumed after a restart of the ledger on the same database, time travel from
// an earlier checkpoint, a fork with updateState, and the thread as the ledger itself shows it.
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { expect, it } from 'vitest';
import { LedgerCheckpointSaver } from '../../src/adapters/langgraph/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

const TOKEN = 'langgraph-test-token';

const textOf = (message: BaseMessage) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content));
const texts = (state: { messages: BaseMessage[] }) => state.messages.map((message) => `${message.getType()}: ${textOf(message)}`);
/** What `invoke` answered about a run that stopped at an interrupt. */
const interruptsOf = (answer: object) => ((answer as { __interrupt__?: Array<{ value: unknown }> }).__interrupt__ ?? []).map((pending) => pending.value);

/** `reply` answers the last human message; `review` is a subgraph that asks a person (an interrupt) before it goes on. */
function buildGraph(checkpointer: LedgerCheckpointSaver) {
  const review = new StateGraph(MessagesAnnotation)
    .addNode('ask', () => {
      const answer = interrupt({ question: 'Send this reply?' }) as string;
      return { messages: [new AIMessage(`review: ${answer}`)] };
    })
    .addEdge(START, 'ask')
    .addEdge('ask', END)
    .compile();
  return new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => {
      const human = [...state.messages].reverse().find((message) => message.getType() === 'human');
      return { messages: [new AIMessage(`echo: ${human ? textOf(human) : ''}`)] };
    })
    .addNode('review', review)
    .addEdge(START, 'reply')
    .addEdge('reply', 'review')
    .addEdge('review', END)
    .compile({ checkpointer });
}

forEachBackend(
  'session-ledger/langgraph under a StateGraph',
  (ledger) => {
    const saver = () => new LedgerCheckpointSaver({ url: ledger.service.url, token: TOKEN, namespace: `graphs-${ledger.backend}` });
    const readLedger = async (path: string) => {
      const response = await ledger.service.request('GET', path, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status, `${path}: ${response.text}`).toBe(200);
      return response.body;
    };

    it("resumes a subgraph's interrupt after the ledger restarts on the same database", { timeout: 120_000 }, async () => {
      const config = { configurable: { thread_id: `interrupted-${ledger.backend}` } };
      const first = await buildGraph(saver()).invoke({ messages: [new HumanMessage('hello')] }, config);
      expect(interruptsOf(first)).toEqual([{ question: 'Send this reply?' }]);
      const paused = await buildGraph(saver()).getState(config, { subgraphs: true });
      expect(paused.next).toEqual(['review']);
      expect(texts(paused.values as { messages: BaseMessage[] })).toEqual(['human: hello', 'ai: echo: hello']);
      // The subgraph's own checkpoints, under its checkpoint_ns.
      const subgraphState = paused.tasks[0]!.state as { next: string[]; config: { configurable: { checkpoint_ns: string } } };
      expect(subgraphState.next).toEqual(['ask']);
      expect(subgraphState.config.configurable.checkpoint_ns).toMatch(/^review:/);

      await ledger.restart();

      // Another process after the restart: a new saver and graph, the same thread id.
      const resumed = await buildGraph(saver()).invoke(new Command({ resume: 'yes' }), config);
      expect(texts(resumed)).toEqual(['human: hello', 'ai: echo: hello', 'ai: review: yes']);
      expect((await buildGraph(saver()).getState(config)).next).toEqual([]);

      // The ledger's own views: a session like any other, its checkpoints and messages items of its history.
      const sessionId = (await saver().ledgerSessionId(config.configurable.thread_id))!;
      expect(await readLedger(`/v1/sessions/${sessionId}`)).toMatchObject({ sessionId, status: 'active' });
      const items = (await readLedger(`/v1/sessions/${sessionId}/items?limit=1000`)).items.map((entry: { item: Record<string, unknown> }) => entry.item);
      const checkpoints = items.filter((item: Record<string, unknown>) => item['type'] === 'langgraph.checkpoint');
      expect(new Set(checkpoints.map((item: Record<string, unknown>) => String(item['checkpointNs']).split(':')[0]))).toEqual(new Set(['', 'review']));
      const messages = items.filter((item: Record<string, unknown>) => item['type'] === 'message');
      expect(messages.map((item: Record<string, unknown>) => [item['role'], item['content']])).toEqual([
        ['user', 'hello'],
        ['assistant', 'echo: hello'],
        ['assistant', 'review: yes'],
      ]);
      const events = await readLedger(`/v1/sessions/${sessionId}/events?limit=500`);
      expect(events.events.filter((event: { type: string }) => event.type === 'ItemAppended').length).toBe(items.length);
    });

    it('travels back: re-running from an earlier checkpoint starts a branch and keeps the original', { timeout: 60_000 }, async () => {
      const graph = buildGraph(saver());
      const config = { configurable: { thread_id: `time-travel-${ledger.backend}` } };
      await graph.invoke({ messages: [new HumanMessage('first question')] }, config);
      await graph.invoke(new Command({ resume: 'ok' }), config);
      const history = [];
      for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
      // Newest first: the end, after review, after reply, the input, and the empty start.
      expect(history.map((snapshot) => snapshot.next)).toEqual([[], ['review'], ['reply'], ['__start__']]);
      const beforeReply = history[2]!;
      expect(texts(beforeReply.values as { messages: BaseMessage[] })).toEqual(['human: first question']);

      const replayed = await graph.invoke(null, beforeReply.config);
      expect(interruptsOf(replayed)).toEqual([{ question: 'Send this reply?' }]);
      const now = await graph.getState(config);
      expect(now.next).toEqual(['review']);
      // The new branch descends from the checkpoint travelled back to.
      const ancestors: string[] = [];
      for (let at = now.parentConfig; at !== undefined && ancestors.length < 10; at = (await graph.getState(at)).parentConfig)
        ancestors.push(String(at.configurable?.['checkpoint_id']));
      expect(ancestors).toContain(beforeReply.config.configurable?.['checkpoint_id']);
      expect(ancestors).not.toContain(history[1]!.config.configurable?.['checkpoint_id']);
      expect(texts(now.values as { messages: BaseMessage[] })).toEqual(['human: first question', 'ai: echo: first question']);
      // The original branch is still there, under its checkpoint id.
      const original = await graph.getState(history[0]!.config);
      expect(texts(original.values as { messages: BaseMessage[] })).toEqual(['human: first question', 'ai: echo: first question', 'ai: review: ok']);
    });

    it('forks with updateState: a changed message at an earlier checkpoint, and the run goes on from the fork', { timeout: 60_000 }, async () => {
      const graph = buildGraph(saver());
      const config = { configurable: { thread_id: `fork-${ledger.backend}` } };
      await graph.invoke({ messages: [new HumanMessage('original')] }, config);
      const history = [];
      for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
      const input = history.find((snapshot) => snapshot.next.includes('reply'))!;
      const human = (input.values as { messages: BaseMessage[] }).messages[0]!;
      // The same message id: MessagesAnnotation's reducer replaces the message instead of adding one.
      const forkConfig = await graph.updateState(input.config, { messages: [new HumanMessage({ content: 'edited', id: human.id! })] });
      expect(forkConfig.configurable?.['checkpoint_id']).not.toBe(input.config.configurable?.['checkpoint_id']);
      const forked = await graph.getState(forkConfig);
      expect(forked.metadata?.source).toBe('update');
      expect(forked.parentConfig?.configurable?.['checkpoint_id']).toBe(input.config.configurable?.['checkpoint_id']);
      expect(texts(forked.values as { messages: BaseMessage[] })).toEqual(['human: edited']);

      await graph.invoke(null, forkConfig);
      const done = await graph.invoke(new Command({ resume: 'fine' }), config);
      expect(texts(done)).toEqual(['human: edited', 'ai: echo: edited', 'ai: review: fine']);
      // The checkpoint forked from still holds the original message.
      expect(texts((await graph.getState(input.config)).values as { messages: BaseMessage[] })).toEqual(['human: original']);
    });
  },
  { restartable: true, env: { API_TOKEN: TOKEN } },
);
