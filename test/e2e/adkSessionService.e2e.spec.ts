// session-ledger/adk under ADK's own Runner and a scripted model: a tool call that writes user: and app: state, an
// output key, a restart of the ledger, and a turn whose model call sees the whole history and state; a stale session
// object refused as ADK's DatabaseSessionService refuses it; erasure of a user's state; a ledger that is down.
import { BaseLlm, createEvent, FunctionTool, LlmAgent, Runner, type LlmRequest, type LlmResponse } from '@google/adk';
import { expect, it } from 'vitest';
import { LedgerSessionService, LedgerUnavailableError, StaleSessionError } from '../../src/adapters/adk/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

const TOKEN = 'adk-runner-test-token';

/** A model that answers from a script, and remembers what each call was sent. */
class ScriptedLlm extends BaseLlm {
  readonly requests: LlmRequest[] = [];
  constructor(private readonly script: Array<(request: LlmRequest) => LlmResponse>) {
    super({ model: 'scripted' });
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(request);
    const next = this.script.shift();
    if (!next) throw new Error('the script has no answer left');
    yield next(request);
  }
  connect(): never {
    throw new Error('no live connection in a scripted model');
  }
}

const text = (value: string): LlmResponse => ({ content: { role: 'model', parts: [{ text: value }] } });
const call = (name: string, args: Record<string, unknown>): LlmResponse => ({
  content: { role: 'model', parts: [{ functionCall: { id: `call-${name}`, name, args } }] },
});
const texts = (request: LlmRequest) =>
  request.contents.flatMap((content) => (content.parts ?? []).map((part) => part.text ?? (part.functionCall ? `call ${part.functionCall.name}` : 'result')));

const rememberCity = new FunctionTool({
  name: 'remember_city',
  description: 'Remembers the city the user asked about',
  execute: (input: unknown, context) => {
    const { city } = input as { city: string };
    context!.state.set('user:last_city', city);
    context!.state.set('app:lookups', Number(context!.state.get('app:lookups') ?? 0) + 1);
    context!.state.set('temp:scratch', 'never stored');
    return { remembered: city };
  },
});

async function runTurn(runner: Runner, sessionId: string, message: string) {
  const events = [];
  for await (const event of runner.runAsync({ userId: 'alice', sessionId, newMessage: { role: 'user', parts: [{ text: message }] } })) events.push(event);
  return events;
}

forEachBackend(
  'session-ledger/adk',
  (ledger) => {
    it("keeps a Runner's events and state across a tool call and a restart of the ledger", { timeout: 120_000 }, async () => {
      const model = new ScriptedLlm([() => call('remember_city', { city: 'Paris' }), () => text('It is sunny in Paris.')]);
      const agent = new LlmAgent({ name: 'forecaster', model, instruction: 'Answer about the weather.', tools: [rememberCity], outputKey: 'last_answer' });
      const sessions = new LedgerSessionService({ url: ledger.service.url, token: TOKEN });
      await sessions.createSession({ appName: 'weather', userId: 'alice', sessionId: 'chat-1', state: { tone: 'brief', 'temp:x': 1 } });
      const events = await runTurn(new Runner({ appName: 'weather', agent, sessionService: sessions }), 'chat-1', 'Weather in Paris?');
      expect(events.at(-1)?.content?.parts?.[0]?.text).toBe('It is sunny in Paris.');
      const before = (await sessions.getSession({ appName: 'weather', userId: 'alice', sessionId: 'chat-1' }))!;
      expect(before.state).toEqual({ tone: 'brief', last_answer: 'It is sunny in Paris.', 'user:last_city': 'Paris', 'app:lookups': 1 });
      expect(before.events.map((event) => event.author)).toEqual(['user', 'forecaster', 'forecaster', 'forecaster']);

      await ledger.restart();

      // Another process after the restart: the same session, its history and state, the app's and the user's state.
      const after = new ScriptedLlm([() => text('You asked about Paris.')]);
      const resumed = new LedgerSessionService({ url: ledger.service.url, token: TOKEN });
      const agentAgain = new LlmAgent({
        name: 'forecaster',
        model: after,
        instruction: 'Answer about the weather.',
        tools: [rememberCity],
        outputKey: 'last_answer',
      });
      await runTurn(new Runner({ appName: 'weather', agent: agentAgain, sessionService: resumed }), 'chat-1', 'What did I ask?');
      expect(texts(after.requests[0]!)).toEqual(['Weather in Paris?', 'call remember_city', 'result', 'It is sunny in Paris.', 'What did I ask?']);
      const now = (await resumed.getSession({ appName: 'weather', userId: 'alice', sessionId: 'chat-1' }))!;
      expect(now.events).toHaveLength(6);
      expect(now.state).toMatchObject({ last_answer: 'You asked about Paris.', 'user:last_city': 'Paris', 'app:lookups': 1 });
      // A new session of the same user and app sees the user: and app: state, not the session's.
      const second = await resumed.createSession({ appName: 'weather', userId: 'alice', sessionId: 'chat-2' });
      expect(second.state).toEqual({ 'user:last_city': 'Paris', 'app:lookups': 1 });
      const bob = await resumed.createSession({ appName: 'weather', userId: 'bob' });
      expect(bob.state).toEqual({ 'app:lookups': 1 });
      expect((await resumed.getSession({ appName: 'weather', userId: 'alice', sessionId: 'chat-1', config: { numRecentEvents: 2 } }))!.events).toHaveLength(2);
      const listed = await resumed.listSessions({ appName: 'weather', userId: 'alice' });
      expect(listed.sessions.map((session) => session.id).sort()).toEqual(['chat-1', 'chat-2']);
    });

    it('refuses an append through a session object older than the stored session, writing nothing', async () => {
      const sessions = new LedgerSessionService({ url: ledger.service.url, token: TOKEN });
      const other = new LedgerSessionService({ url: ledger.service.url, token: TOKEN });
      await sessions.createSession({ appName: 'stale', userId: 'u', sessionId: 's' });
      const mine = (await sessions.getSession({ appName: 'stale', userId: 'u', sessionId: 's' }))!;
      const theirs = (await other.getSession({ appName: 'stale', userId: 'u', sessionId: 's' }))!;
      await other.appendEvent({ session: theirs, event: createEvent({ author: 'user', actions: { stateDelta: { owner: 'them' } } }) });
      const refused = sessions.appendEvent({ session: mine, event: createEvent({ author: 'user', actions: { stateDelta: { owner: 'me', 'app:x': 1 } } }) });
      await expect(refused).rejects.toBeInstanceOf(StaleSessionError);
      await expect(refused).rejects.toThrow(/is earlier than the update_time in the storage_session .*Please check if it is a stale session\./);
      const stored = (await sessions.getSession({ appName: 'stale', userId: 'u', sessionId: 's' }))!;
      expect([stored.events.length, stored.state]).toEqual([1, { owner: 'them' }]);
      // Read again, the append goes ahead; so does one through a copy that is the stored session (compared by time).
      await sessions.appendEvent({ session: stored, event: createEvent({ author: 'user', actions: { stateDelta: { owner: 'me' } } }) });
      const copy = structuredClone((await sessions.getSession({ appName: 'stale', userId: 'u', sessionId: 's' }))!);
      await sessions.appendEvent({ session: copy, event: createEvent({ author: 'user' }) });
      await expect(sessions.appendEvent({ session: structuredClone(mine), event: createEvent({ author: 'user' }) })).rejects.toBeInstanceOf(StaleSessionError);
      expect((await sessions.getSession({ appName: 'stale', userId: 'u', sessionId: 's' }))!.events).toHaveLength(3);
      await expect(sessions.createSession({ appName: 'stale', userId: 'u', sessionId: 's' })).rejects.toThrow('Session with id s already exists.');
    });

    it("erases a user's state by its key", async () => {
      const sessions = new LedgerSessionService({ url: ledger.service.url, token: TOKEN, namespace: 'adk-erase' });
      const session = await sessions.createSession({ appName: 'shop', userId: 'carol', state: { 'user:address': '1 Main St', 'app:open': true } });
      const erased = await ledger.service.request('POST', '/v1/admin/erase', {
        body: { sessionKey: sessions.userStateErasureKey('shop', 'carol') },
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(erased.status, erased.text).toBe(200);
      expect((await sessions.getSession({ appName: 'shop', userId: 'carol', sessionId: session.id }))!.state).toEqual({ 'app:open': true });
    });

    it('fails with the URL when the ledger is down, never with an empty answer', async () => {
      const down = new LedgerSessionService({ url: 'http://127.0.0.1:9', retry: { maxAttempts: 1 } });
      await expect(down.getSession({ appName: 'a', userId: 'u', sessionId: 's' })).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(down.listSessions({ appName: 'a' })).rejects.toThrow('http://127.0.0.1:9');
    });
  },
  { restartable: true, env: { API_TOKEN: TOKEN } },
);
