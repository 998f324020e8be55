// What the service answers conforms to the document: every success answer the typed client receives in a full
// scenario is validated (Ajv, JSON Schema 2020-12) against its operation's response schema in /openapi.json.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerClient, ledgerOperations, type Operation } from '../../src/client/index.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

type Document = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }>>;
  components: { schemas: Record<string, unknown> };
};
const BASE = 'https://session-ledger.invalid/openapi.json';

describe('answers ↔ the OpenAPI document', () => {
  let service: TestApp;
  let document: Document;
  const checked = new Set<string>();
  const mismatches: string[] = [];

  beforeAll(async () => {
    service = await startTestApp('pglite', { env: { JOB_TICK_INTERVAL_MS: '0' } });
    document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Document;
  }, 120_000);
  afterAll(async () => {
    await service?.close();
  });

  /** Finds the operation a URL answers for, validates a 2xx JSON body against its schema. */
  function validatingFetch(): typeof fetch {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: BASE, components: document.components });
    const templates = (Object.values(ledgerOperations) as Operation[]).map((operation) => ({
      operation,
      pattern: new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
    }));
    return async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(String(input));
      const method = (init?.method ?? 'GET').toLowerCase();
      const match = templates.find(({ operation, pattern }) => operation.method.toLowerCase() === method && pattern.test(url.pathname));
      if (!match || !response.ok || match.operation.stream) return response;
      const responses = document.paths[match.operation.path]?.[method]?.responses ?? {};
      const status = String(response.status);
      if (status === '204') {
        if (!responses[status]) mismatches.push(`${method.toUpperCase()} ${match.operation.path} 204: not documented`);
        return response;
      }
      const schema = responses[status]?.content?.['application/json']?.schema;
      const label = `${method.toUpperCase()} ${match.operation.path} ${status}`;
      if (!schema) {
        mismatches.push(`${label}: the document has no schema for this status`);
        return response;
      }
      const body = (await response.clone().json()) as unknown;
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${BASE}#/components/`)));
      if (!validate(body)) mismatches.push(`${label}: ${ajv.errorsText(validate.errors)}`);
      checked.add(`${match.operation.method} ${match.operation.path}`);
      return response;
    };
  }

  it('every answer of a full scenario matches its documented schema', { timeout: 120_000 }, async () => {
    const client = new LedgerClient({ baseUrl: service.url, fetch: validatingFetch() });
    await client.health();
    await client.ready();
    await client.whoami();
    const resolved = await client.resolveSession({ source: { platform: 'telegram', chatType: 'dm', chatId: '777', userName: 'Vera' }, gatewayId: 'gw-a' });
    const key = resolved.sessionKey;
    const id = resolved.sessionId;
    await client.getConversation(key);
    await client.updateConversation(key, { lastPromptTokens: 321 });
    await client.resolveSession({ source: { platform: 'telegram', chatType: 'dm', chatId: '777' } });
    await client.conversationContext(key);
    const turn = await client.recordTurn(id, {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      usage: { inputTokens: 5, outputTokens: 2 },
    });
    await client.recordTurn(id, {
      messages: [
        { role: 'user', content: 'again' },
        { role: 'assistant', content: 'yes' },
      ],
    });
    await client.getSession(id);
    await client.search({ q: 'hello' });
    await client.search({ q: 'hello', groupBy: 'session', hitsPerSession: 1 });
    await client.getTranscript(id);
    for (const format of ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const) await client.contextWindow(id, { format, maxTokens: 5 });
    await client.createCheckpoint(id, { label: 'before rewind' });
    await client.listCheckpoints(id);
    await client.rewind(id, { turns: 1 });
    if (turn.checkpointId) await client.rollback(id, turn.checkpointId);
    await client.rewriteTranscript(id, { messages: [{ role: 'user', content: 'rewritten' }] });
    await client.sessionState(id);
    const fork = await client.forkSession(id, {});
    await client.createChild(id, { agentName: 'researcher' });
    await client.setMemory(id, 'user.name', { value: 'Vera', metadata: { source: 'profile' } });
    await client.sessionMemory(id);
    await client.removeMemory(id, 'user.name');
    await client.createSlot(id, 'research');
    await client.switchSlot(id, 'research');
    await client.sessionSlots(id);
    await client.switchSlot(id, 'main');
    await client.sessionTree(fork.sessionId);
    await client.listChildren(id);
    const agentSession = await client.putAgentSession('docs', 'conversation/1', { agentName: 'helper', metadata: { team: 'a' } });
    await client.putAgentSession('docs', 'conversation/1');
    await client.createAgentSession('docs', {});
    await client.getAgentSession('docs', 'conversation/1');
    await client.appendItems(agentSession.sessionId, { items: [{ id: 'm1', type: 'message', content: 'hi' }, { type: 'reasoning' }] });
    await client.listItems(agentSession.sessionId, { limit: 1 });
    await client.listItems(agentSession.sessionId, { before: 'm1' });
    await client.getItem(agentSession.sessionId, 'm1');
    await client.popItem(agentSession.sessionId);
    await client.popItem(agentSession.sessionId);
    await client.popItem(agentSession.sessionId);
    await client.appendItems(agentSession.sessionId, { items: [{ text: 'again' }], idField: null });
    await client.clearItems(agentSession.sessionId);
    await client.changeSessionValues(agentSession.sessionId, {
      delta: { topic: 'docs' },
      sharedStateDeltas: [{ namespace: 'docs', stateId: 'app:docs', delta: { n: 1 } }],
    });
    await client.getSessionValues(agentSession.sessionId);
    await client.changeSharedState('docs', 'user:docs/u1', { delta: { theme: 'dark' } });
    await client.getSharedState('docs', 'app:docs');
    await client.listAgentSessions('docs', { limit: 1 });
    await client.deleteAgentSession('docs', 'conversation/1');
    await client.sessionParent(fork.sessionId);
    await client.sessionState(fork.sessionId);
    await client.destroySession(fork.sessionId);
    await client.sessionEvents(id);
    await client.conversationEvents(key);
    await client.startTurn(id);
    await client.enqueue(key, { message: { text: 'queued while busy' }, mode: 'queue' });
    await client.getQueue(key);
    await client.nextQueued(key);
    await client.nextQueued(key);
    await client.markResumePending(key, 'restart_timeout');
    await client.clearResumePending(key);
    await client.suspendConversation(key, { reason: 'operator' });
    const reset = await client.resetConversation(key);
    await client.switchSession(key, id);
    await client.listSessions();
    await client.sessionByKey(key);
    await client.sessionRecord(reset.sessionId);
    await client.sessionCount({ atLeast: 2 });
    await client.exportSessionsJson();
    await client.gatewayStopping('gw-a', { activeKeys: [key] });
    await client.gatewayStopped('gw-a', {});
    await client.gatewayStarted('gw-a', { bootId: 'boot-2' });
    await client.gatewayPlatforms('gw-a', {
      platforms: [{ platform: 'telegram', displayName: 'Bot', homeChannel: { chatId: '-100', name: 'Ops' } }, { platform: 'discord' }],
    });
    await client.createJob({ id: 'digest', name: 'Digest', schedule: 'every 1m', prompt: 'Summarise' });
    await client.importJobs({ jobs: [{ id: 'imported', schedule: '0 9 * * *', skill: 'news' }] });
    await client.listJobs();
    await client.getJob('digest');
    const fire = await client.fireJob('digest');
    await client.reportRun('digest', fire.fireId, { status: 'ok' });
    await client.updateJob('digest', { enabled: false, deliverTo: { platform: 'telegram', chatId: '777' } });
    await client.getJob('digest');
    await client.deleteJob('imported');

    const runtimeKey = (await client.resolveSession({ source: { platform: 'slack', chatType: 'group', chatId: 'C1' } })).sessionKey;
    await client.runtimeBinding(runtimeKey);
    const started = await client.runtimeTurn(runtimeKey, { provider: 'codex', model: 'gpt-5', input: 'fix the build' });
    const runtimeId = started.runtimeSessionId;
    await client.reportWorkerEvent(runtimeId, { type: 'started' });
    await client.reportWorkerEvent(runtimeId, { type: 'approval_request', approvalId: 'appr-1', details: { command: 'npm publish' } });
    await client.runtimePending(runtimeKey);
    await client.answerApproval(runtimeId, 'appr-1', { decision: 'allow', remember: 'session' });
    await client.reportWorkerEvent(runtimeId, { type: 'question', questionId: 'q-1' });
    await client.answerQuestion(runtimeId, 'q-1', 'main');
    await client.reportWorkerEvent(runtimeId, { type: 'failed', error: 'tests failed' });
    await client.runtimeBinding(runtimeKey);
    await client.getRuntimeSession(runtimeId);
    await client.newRuntime(runtimeKey, { task: 'write the changelog', provider: 'claude' });
    await client.newRuntime(runtimeKey);
    await client.detachRuntime(runtimeKey);

    await client.listProjections();
    await client.getProjection('sessions-index');
    await client.listStreams({ category: 'conversation', limit: 5 });
    await client.pruneConversations(0);
    await client.pruneConversations(3650);
    await client.eraseConversation({ sessionKey: runtimeKey });
    await client.applyRetention({ dryRun: true, contentDays: 1, keepCheckpoints: 1 });
    await client.applyRetention({ contentDays: 3650, keepCheckpoints: 1 });
    await client.rebuildProjection('jobs');

    expect(mismatches).toEqual([]);
    // Everything the client wraps but its streams was checked.
    const wrapped = (Object.values(ledgerOperations) as Operation[])
      .filter((operation) => !operation.stream)
      .map((operation) => `${operation.method} ${operation.path}`);
    expect([...checked].sort()).toEqual(wrapped.sort());
  });
});
