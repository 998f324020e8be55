// A Google ADK agent whose sessions and state Session Ledger keeps. See README.md next to it.
import { BaseLlm, FunctionTool, LlmAgent, type LlmRequest, type LlmResponse, Runner } from '@google/adk';
import { LedgerSessionService } from '../../src/adapters/adk/index.js';

const question = process.argv.slice(2).join(' ') || 'What is the weather in Paris?';
const userId = process.env.USER_ID ?? 'alice';

/** Without a Google API key, a scripted model stands in (one tool call, then an answer), so the example runs offline. */
class OfflineModel extends BaseLlm {
  constructor() {
    super({ model: 'offline' });
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const last = request.contents.at(-1)?.parts?.[0];
    if (last?.functionResponse) yield { content: { role: 'model', parts: [{ text: 'It is sunny in Paris.' }] } };
    else yield { content: { role: 'model', parts: [{ functionCall: { id: `call-${Date.now()}`, name: 'get_weather', args: { city: 'Paris' } } }] } };
  }
  connect(): never {
    throw new Error('the offline model has no live connection');
  }
}

const getWeather = new FunctionTool({
  name: 'get_weather',
  description: 'The weather in a city',
  execute: (input: unknown, context) => {
    const { city } = input as { city: string };
    // user: state is shared by every session of this user; app: state by every session of the app.
    context!.state.set('user:last_city', city);
    context!.state.set('app:lookups', Number(context!.state.get('app:lookups') ?? 0) + 1);
    return { forecast: `sunny in ${city}` };
  },
});

const sessionService = new LedgerSessionService({
  url: process.env.LEDGER_URL ?? 'http://127.0.0.1:3000',
  ...(process.env.LEDGER_TOKEN ? { token: process.env.LEDGER_TOKEN } : {}),
});
const agent = new LlmAgent({
  name: 'forecaster',
  model: process.env.GOOGLE_API_KEY ? 'gemini-2.5-flash' : new OfflineModel(),
  instruction: 'Answer questions about the weather; use the tool.',
  tools: [getWeather],
  outputKey: 'last_answer',
});
const runner = new Runner({ appName: 'weather', agent, sessionService });

const session = process.env.SESSION_ID
  ? await sessionService.getOrCreateSession({ appName: 'weather', userId, sessionId: process.env.SESSION_ID })
  : await sessionService.createSession({ appName: 'weather', userId });
for await (const event of runner.runAsync({ userId, sessionId: session.id, newMessage: { role: 'user', parts: [{ text: question }] } })) {
  const text = event.content?.parts?.map((part) => part.text ?? '').join('');
  if (text && event.author === 'forecaster') console.log(text);
}
const stored = (await sessionService.getSession({ appName: 'weather', userId, sessionId: session.id }))!;
console.log(`session ${session.id}: ${stored.events.length} events, state ${JSON.stringify(stored.state)}`);
console.log(`continue it: SESSION_ID=${session.id} node dist/examples/adk/main.js "And in Rome?"`);
