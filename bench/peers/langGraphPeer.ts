// LangGraph's PostgresSaver on a schema of its own, under a one-node StateGraph: the node appends a reply, no model.
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { TURN } from '../turnMessages.js';
import type { PeerLibrary } from './peerLibrary.js';

function oneNodeGraph(checkpointer: PostgresSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('reply', () => ({
      messages: [
        new AIMessage({
          content: TURN.reply,
          usage_metadata: {
            input_tokens: TURN.usage.inputTokens,
            output_tokens: TURN.usage.outputTokens,
            total_tokens: TURN.usage.inputTokens + TURN.usage.outputTokens,
          },
        }),
      ],
    }))
    .addEdge(START, 'reply')
    .addEdge('reply', END)
    .compile({ checkpointer });
}

/** A session is a thread, named by its id. The saver's own pool (`pg`'s default of 10 connections, the ledger's default too). */
export async function openLangGraphPeer(postgresUrl: string, schema: string): Promise<PeerLibrary<string>> {
  const saver = PostgresSaver.fromConnString(postgresUrl, { schema });
  await saver.setup();
  const graph = oneNodeGraph(saver);
  const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
  // invoke returns once every checkpoint and write of the run is stored (it awaits the saver's puts before it ends).
  const turn = (threadId: string) => graph.invoke({ messages: [new HumanMessage(TURN.user)] }, config(threadId));
  return {
    name: 'LangGraph',
    calls: { create: 'first invoke on a new thread', turn: 'invoke on an existing thread', load: 'getState' },
    async createSession(name) {
      await turn(name);
      return name;
    },
    async recordTurn(threadId) {
      await turn(threadId);
    },
    async loadSession(threadId) {
      await graph.getState(config(threadId));
    },
    close: () => saver.end(),
  };
}
