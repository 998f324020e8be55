// A LangGraph support-ticket graph whose checkpoints Session Ledger keeps: a refund waits for a person's approval
// (an interrupt), and a later run, in any process, resumes it. See README.md next to it.
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { LedgerCheckpointSaver } from '../../src/adapters/langgraph/index.js';

const [command = 'open', ...words] = process.argv.slice(2);
const threadId = process.env.THREAD_ID ?? `ticket-${Date.now()}`;

const checkpointer = new LedgerCheckpointSaver({
  url: process.env.LEDGER_URL ?? 'http://127.0.0.1:3000',
  ...(process.env.LEDGER_TOKEN ? { token: process.env.LEDGER_TOKEN } : {}),
});

// Plain functions stand in for a model: the example runs offline.
const graph = new StateGraph(MessagesAnnotation)
  .addNode('triage', (state) => {
    const complaint = String(state.messages.at(-1)?.content ?? '');
    return { messages: [new AIMessage(`Proposed: refund 40 EUR for “${complaint}”.`)] };
  })
  .addNode('approve', () => {
    const decision = interrupt({ question: 'Approve the refund?' }) as string;
    return { messages: [new AIMessage(decision === 'yes' ? 'Refund sent.' : `Refund declined (${decision}).`)] };
  })
  .addEdge(START, 'triage')
  .addEdge('triage', 'approve')
  .addEdge('approve', END)
  .compile({ checkpointer });

const config = { configurable: { thread_id: threadId } };
const result =
  command === 'resume'
    ? await graph.invoke(new Command({ resume: words.join(' ') || 'yes' }), config)
    : await graph.invoke({ messages: [new HumanMessage(words.join(' ') || 'My parcel never came.')] }, config);

for (const message of result.messages) console.log(`${message.getType()}: ${String(message.content)}`);
const state = await graph.getState(config);
if (state.next.length > 0) {
  console.log(`waiting for: ${state.tasks.flatMap((task) => task.interrupts.map((pending) => JSON.stringify(pending.value))).join(', ')}`);
  console.log(`resume it: THREAD_ID=${threadId} node dist/examples/langgraph/main.js resume yes`);
}
let checkpoints = 0;
for await (const _ of checkpointer.list(config)) checkpoints += 1;
console.log(`thread ${threadId} (ledger session ${await checkpointer.ledgerSessionId(threadId)}): ${checkpoints} checkpoints`);
