// An OpenAI Agents SDK agent whose session history Session Ledger keeps. See README.md next to it.
import { Agent, type Model, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';
import { LedgerSession } from '../../src/adapters/openaiAgents/index.js';

const question = process.argv.slice(2).join(' ') || 'What is the weather in Paris?';

const getWeather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
  execute: async (input) => `sunny in ${(input as { city: string }).city}`,
});

/** Without an OpenAI key, a scripted model stands in (one tool call, then an answer), so the example runs offline. */
function offlineModel(): Model {
  setTracingDisabled(true);
  return new ScriptedModel([[functionCall('get_weather', { city: 'Paris' }, { callId: `call_${Date.now()}` })], [assistantMessage('It is sunny in Paris.')]]);
}

const session = new LedgerSession({
  url: process.env.LEDGER_URL ?? 'http://127.0.0.1:3000',
  ...(process.env.LEDGER_TOKEN ? { token: process.env.LEDGER_TOKEN } : {}),
  ...(process.env.SESSION_ID ? { sessionId: process.env.SESSION_ID } : {}),
  agentName: 'forecaster',
});
const agent = new Agent({
  name: 'forecaster',
  instructions: 'Answer questions about the weather; use the tool.',
  tools: [getWeather],
  ...(process.env.OPENAI_API_KEY ? {} : { model: offlineModel() }),
});

const result = await run(agent, question, { session });
console.log(result.finalOutput);
const sessionId = await session.getSessionId();
console.log(`session ${sessionId} (ledger ${await session.ledgerSessionId()}): ${(await session.getItems()).length} items`);
console.log(`continue it: SESSION_ID=${sessionId} node dist/examples/openai-agents/main.js "And in Rome?"`);
