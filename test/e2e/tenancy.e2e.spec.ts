// Tokens, scopes, the actor in every event, and tenants that see and touch only their own data (404 for the rest).
import { Writable } from 'node:stream';
import { beforeAll, expect, it } from 'vitest';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend } from '../support/forEachBackend.js';
import type { BackendLabel } from '../support/testDatabases.js';
import type { TestResponse } from '../support/testApp.js';

const SECRETS = {
  ops: 'ops-secret-0123456789abcdef',
  reader: 'reader-secret-0123456789abcdef',
  acme: 'acme-secret-0123456789abcdef',
  globex: 'globex-secret-0123456789abcdef',
} as const;
type Caller = keyof typeof SECRETS;

const API_TOKEN = [
  `ops:admin=${SECRETS.ops}`,
  `reader:read=${SECRETS.reader}`,
  `acme-bot:write:acme=${SECRETS.acme}`,
  `globex-bot:write:globex=${SECRETS.globex}`,
].join(',');

const source = { platform: 'telegram', chatType: 'dm', chatId: '4242', userId: '4242', userName: 'Ann' };

/** Routes not addressed by a tenant's ids: admin routes (admin scope only), streams, gateways (checked apart). */
// A namespace is the caller's own: its listing and a create in it are the caller's tenant's, never another's.
const NOT_ID_ADDRESSED = [/^\/v1\/admin\//, /^\/v1\/gateways\//, /\/stream$/, /^\/v1\/namespaces\/\{namespace\}\/sessions$/];
/** Create-or-get by the caller's own external id: another tenant's same id is another session (checked on its own below). */
const OWN_TENANT_CREATES = ['PUT /v1/namespaces/{}/sessions/{}'];
/** Named by the caller's own words, not an id another tenant issued: each tenant reads and writes its own (checked below). */
const OWN_TENANT_STATES = ['GET /v1/namespaces/{}/states/{}', 'PATCH /v1/namespaces/{}/states/{}'];

const clockOf = clockPerBackend(new Date('2026-03-02T07:00:00Z'));
/** What each backend's service logged (at debug), for the test that reads the actors and tenants in it. */
const logsOf = (() => {
  const logs = new Map<BackendLabel, { text: string[]; destination: Writable }>();
  return (backend: BackendLabel) => {
    if (!logs.has(backend)) {
      const text: string[] = [];
      const destination = new Writable({
        write(chunk, _encoding, done) {
          text.push(String(chunk));
          done();
        },
      });
      logs.set(backend, { text, destination });
    }
    return logs.get(backend)!;
  };
})();

forEachBackend(
  'tenants and scoped tokens',
  (ledger) => {
    const as = (caller: Caller, method: string, path: string, body?: unknown): Promise<TestResponse> =>
      ledger.service.request(method, path, { body, headers: { authorization: `Bearer ${SECRETS[caller]}` } });

    // Acme's world: a conversation with a turn, a checkpoint, a child, a queued message, a job, a runtime session.
    let key: string;
    let sessionId: string;
    let childId: string;
    let checkpointId: string;
    let runtimeSessionId: string;
    let agentSessionId: string;
    let fireId: string;
    const jobId = 'daily-report';
    const clock = clockOf(ledger.backend);
    const logText = logsOf(ledger.backend).text;

    beforeAll(async () => {
      const resolved = await as('acme', 'POST', '/v1/sessions/resolve', { source, gatewayId: 'gw-1' });
      expect(resolved.status).toBe(201);
      ({ sessionKey: key, sessionId } = resolved.body);
      expect((await as('acme', 'POST', `/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: 'acme secret plan' }] })).status).toBe(201);
      const checkpoint = await as('acme', 'POST', `/v1/sessions/${sessionId}/checkpoints`, { label: 'before' });
      checkpointId = checkpoint.body.checkpointId;
      expect(checkpointId).toBeTruthy();
      childId = (await as('acme', 'POST', `/v1/sessions/${sessionId}/children`, { agentName: 'helper' })).body.sessionId;
      expect(childId).toBeTruthy();
      expect(
        (await as('acme', 'POST', `/v1/conversations/${encodeURIComponent(key)}/queue`, { message: { text: 'later' }, mode: 'queue' })).status,
      ).toBeLessThan(300);
      expect((await as('acme', 'POST', '/v1/jobs', { id: jobId, prompt: 'report', schedule: '0 8 * * *' })).status).toBe(201);
      clock.advance(3_600_000);
      const fired = await as('acme', 'POST', `/v1/jobs/${jobId}/fire`, {});
      expect(fired.body).toMatchObject({ jobId });
      fireId = fired.body.fireId;
      const turn = await as('acme', 'POST', `/v1/conversations/${encodeURIComponent(key)}/runtime/turns`, { provider: 'codex', model: 'gpt', input: 'go' });
      expect(turn.status).toBeLessThan(300);
      runtimeSessionId = turn.body.runtimeSessionId;
      const agentSession = await as('acme', 'PUT', '/v1/namespaces/support/sessions/acme-chat', { agentName: 'helper' });
      expect(agentSession.status).toBe(201);
      agentSessionId = agentSession.body.sessionId;
      expect((await as('acme', 'POST', `/v1/sessions/${agentSessionId}/items`, { items: [{ text: 'acme item' }] })).status).toBe(200);
      expect((await as('acme', 'PATCH', `/v1/sessions/${agentSessionId}/values`, { delta: { step: 'acme' } })).status).toBe(200);
      expect((await as('acme', 'PATCH', '/v1/namespaces/support/states/user:shared-name', { delta: { secret: 'acme' } })).status).toBe(200);
    });

    it('needs a valid token, and the scope the route needs', async () => {
      expect((await ledger.service.request('GET', '/v1/sessions')).body.error.code).toBe('UNAUTHORIZED');
      expect((await ledger.service.request('GET', '/v1/sessions', { headers: { authorization: `Bearer ${SECRETS.ops}x` } })).status).toBe(401);
      expect((await as('reader', 'GET', '/v1/sessions')).status).toBe(200);
      const readerWrites = await as('reader', 'POST', '/v1/sessions/resolve', { source, gatewayId: 'gw-1' });
      expect(readerWrites.status).toBe(403);
      expect(readerWrites.body.error.code).toBe('INSUFFICIENT_SCOPE');
      expect(readerWrites.body.error.requestId).toBeTruthy();
      const botAdmin = await as('acme', 'GET', '/v1/admin/projections');
      expect(botAdmin.status).toBe(403);
      expect(botAdmin.body.error.code).toBe('INSUFFICIENT_SCOPE');
      expect((await as('ops', 'GET', '/v1/admin/projections')).status).toBe(200);
      expect((await as('reader', 'POST', '/v1/admin/prune', { maxAgeDays: 1 })).status).toBe(403);
      // Metrics count every tenant's traffic: not for a tenant's token.
      expect((await as('reader', 'GET', '/metrics')).status).toBe(200);
      expect((await as('acme', 'GET', '/metrics')).status).toBe(403);
    });

    it("records the token's name as the actor, and its tenant, in every event", async () => {
      const page = (await as('acme', 'GET', `/v1/sessions/${sessionId}/events`)).body;
      const events = page.events;
      expect(events.length).toBeGreaterThan(1);
      for (const event of events) expect(event.metadata).toMatchObject({ actor: 'acme-bot', tenant: 'acme' });
      expect(page.streamName).toBe(`acme~session-${sessionId}`);
    });

    it("answers 404 to another tenant on every route addressed by the first tenant's ids, and changes nothing", async () => {
      const k = encodeURIComponent(key);
      const s = sessionId;
      const attempts: Array<[method: string, template: string, path: string, body?: unknown]> = [
        ['GET', '/v1/conversations/{key}', `/v1/conversations/${k}`],
        ['PATCH', '/v1/conversations/{key}', `/v1/conversations/${k}`, { lastPromptTokens: 1 }],
        ['POST', '/v1/conversations/{key}/reset', `/v1/conversations/${k}/reset`],
        ['POST', '/v1/conversations/{key}/switch', `/v1/conversations/${k}/switch`, { sessionId: s }],
        ['POST', '/v1/conversations/{key}/suspend', `/v1/conversations/${k}/suspend`, { reason: 'stop' }],
        ['POST', '/v1/conversations/{key}/resume-pending', `/v1/conversations/${k}/resume-pending`, { reason: 'restart_timeout' }],
        ['DELETE', '/v1/conversations/{key}/resume-pending', `/v1/conversations/${k}/resume-pending`],
        ['GET', '/v1/conversations/{key}/context', `/v1/conversations/${k}/context`],
        ['GET', '/v1/conversations/{key}/events', `/v1/conversations/${k}/events`],
        ['POST', '/v1/conversations/{key}/queue', `/v1/conversations/${k}/queue`, { message: { text: 'x' }, mode: 'queue' }],
        ['POST', '/v1/conversations/{key}/queue/next', `/v1/conversations/${k}/queue/next`],
        ['GET', '/v1/conversations/{key}/queue', `/v1/conversations/${k}/queue`],
        ['POST', '/v1/conversations/{key}/runtime/turns', `/v1/conversations/${k}/runtime/turns`, { provider: 'codex', model: 'gpt', input: 'x' }],
        ['POST', '/v1/conversations/{key}/runtime/new', `/v1/conversations/${k}/runtime/new`, {}],
        ['POST', '/v1/conversations/{key}/runtime/detach', `/v1/conversations/${k}/runtime/detach`],
        ['GET', '/v1/conversations/{key}/runtime', `/v1/conversations/${k}/runtime`],
        ['GET', '/v1/conversations/{key}/runtime/pending', `/v1/conversations/${k}/runtime/pending`],
        ['GET', '/v1/sessions/by-key/{key}', `/v1/sessions/by-key/${k}`],
        ['GET', '/v1/conversations/{key}/entry', `/v1/conversations/${k}/entry`],
        ['GET', '/v1/sessions/{id}', `/v1/sessions/${s}`],
        ['DELETE', '/v1/sessions/{id}', `/v1/sessions/${childId}`],
        ['GET', '/v1/sessions/{id}/record', `/v1/sessions/${s}/record`],
        ['POST', '/v1/sessions/{id}/turns', `/v1/sessions/${s}/turns`, { messages: [{ role: 'user', content: 'x' }] }],
        ['POST', '/v1/sessions/{id}/turns/start', `/v1/sessions/${s}/turns/start`],
        ['GET', '/v1/sessions/{id}/transcript', `/v1/sessions/${s}/transcript`],
        ['PUT', '/v1/sessions/{id}/transcript', `/v1/sessions/${s}/transcript`, { messages: [] }],
        ['POST', '/v1/sessions/{id}/rewind', `/v1/sessions/${s}/rewind`, { turns: 1 }],
        ['GET', '/v1/sessions/{id}/memory', `/v1/sessions/${s}/memory`],
        ['PUT', '/v1/sessions/{id}/memory/{name}', `/v1/sessions/${s}/memory/notes`, { value: 'x' }],
        ['DELETE', '/v1/sessions/{id}/memory/{name}', `/v1/sessions/${s}/memory/notes`],
        ['GET', '/v1/sessions/{id}/slots', `/v1/sessions/${s}/slots`],
        ['POST', '/v1/sessions/{id}/slots', `/v1/sessions/${s}/slots`, { name: 'alt' }],
        ['POST', '/v1/sessions/{id}/slots/{name}/switch', `/v1/sessions/${s}/slots/main/switch`],
        ['GET', '/v1/sessions/{id}/checkpoints', `/v1/sessions/${s}/checkpoints`],
        ['POST', '/v1/sessions/{id}/checkpoints', `/v1/sessions/${s}/checkpoints`, { label: 'x' }],
        ['POST', '/v1/sessions/{id}/rollback', `/v1/sessions/${s}/rollback`, { checkpointId }],
        ['POST', '/v1/sessions/{id}/children', `/v1/sessions/${s}/children`, { agentName: 'x' }],
        ['POST', '/v1/sessions/{id}/fork', `/v1/sessions/${s}/fork`, {}],
        ['GET', '/v1/sessions/{id}/children', `/v1/sessions/${s}/children`],
        ['GET', '/v1/sessions/{id}/parent', `/v1/sessions/${childId}/parent`],
        ['GET', '/v1/sessions/{id}/tree', `/v1/sessions/${s}/tree`],
        ['GET', '/v1/sessions/{id}/events', `/v1/sessions/${s}/events`],
        ['GET', '/v1/sessions/{id}/state', `/v1/sessions/${s}/state?revision=0`],
        ['GET', '/v1/namespaces/{namespace}/sessions/{externalId}', '/v1/namespaces/support/sessions/acme-chat'],
        ['DELETE', '/v1/namespaces/{namespace}/sessions/{externalId}', '/v1/namespaces/support/sessions/acme-chat'],
        ['POST', '/v1/sessions/{id}/items', `/v1/sessions/${agentSessionId}/items`, { items: [{ text: 'x' }] }],
        ['GET', '/v1/sessions/{id}/items', `/v1/sessions/${agentSessionId}/items`],
        ['DELETE', '/v1/sessions/{id}/items', `/v1/sessions/${agentSessionId}/items`],
        ['POST', '/v1/sessions/{id}/items/pop', `/v1/sessions/${agentSessionId}/items/pop`],
        ['GET', '/v1/sessions/{id}/items/{itemId}', `/v1/sessions/${agentSessionId}/items/any-item`],
        ['GET', '/v1/sessions/{id}/values', `/v1/sessions/${agentSessionId}/values`],
        ['GET', '/v1/sessions/{id}/context-window', `/v1/sessions/${sessionId}/context-window?format=anthropic`],
        ['PATCH', '/v1/sessions/{id}/values', `/v1/sessions/${agentSessionId}/values`, { delta: { step: 'globex' } }],
        ['GET', '/v1/jobs/{id}', `/v1/jobs/${jobId}`],
        ['PATCH', '/v1/jobs/{id}', `/v1/jobs/${jobId}`, { enabled: false }],
        ['DELETE', '/v1/jobs/{id}', `/v1/jobs/${jobId}`],
        ['POST', '/v1/jobs/{id}/fire', `/v1/jobs/${jobId}/fire`, {}],
        ['POST', '/v1/jobs/{id}/runs/{fireId}', `/v1/jobs/${jobId}/runs/${fireId}`, { status: 'ok' }],
        ['GET', '/v1/runtime-sessions/{id}', `/v1/runtime-sessions/${runtimeSessionId}`],
        ['POST', '/v1/runtime-sessions/{id}/events', `/v1/runtime-sessions/${runtimeSessionId}/events`, { type: 'progress', message: 'x' }],
        ['POST', '/v1/runtime-sessions/{id}/approvals/{approvalId}', `/v1/runtime-sessions/${runtimeSessionId}/approvals/a1`, { decision: 'allow' }],
        ['POST', '/v1/runtime-sessions/{id}/questions/{questionId}', `/v1/runtime-sessions/${runtimeSessionId}/questions/q1`, { answer: 'x' }],
      ];

      // Every route the API documents with an id in its path is in the table: a new route fails here until added.
      const document = (await as('ops', 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
      const documented = Object.entries(document.paths)
        .filter(([path]) => path.includes('{') && !NOT_ID_ADDRESSED.some((pattern) => pattern.test(path)))
        .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`));
      const covered = new Set(attempts.map(([method, template]) => `${method} ${template.replace(/\{[^}]+\}/g, '{}')}`));
      expect(documented.filter((route) => !covered.has(route) && !OWN_TENANT_CREATES.includes(route) && !OWN_TENANT_STATES.includes(route))).toEqual([]);

      const before = await acmeFootprint();
      const answers = [];
      for (const [method, , path, body] of attempts) {
        const response = await as('globex', method, path, body);
        answers.push({ route: `${method} ${path}`, status: response.status, code: response.body?.error?.code });
      }
      expect(answers.filter((answer) => answer.status !== 404)).toEqual([]);
      expect(await acmeFootprint()).toEqual(before);
    });

    it('gives two tenants the same shared-state id as two states, each seeing and changing only its own', async () => {
      const path = '/v1/namespaces/support/states/user:shared-name';
      expect((await as('globex', 'GET', path)).body).toMatchObject({ state: {}, revision: -1 });
      expect((await as('globex', 'PATCH', path, { delta: { secret: 'globex' } })).body.state).toEqual({ secret: 'globex' });
      expect((await as('acme', 'GET', path)).body.state).toEqual({ secret: 'acme' });
    });

    it('gives two tenants the same external id as two sessions, each seeing only its own items', async () => {
      const globex = await as('globex', 'PUT', '/v1/namespaces/support/sessions/acme-chat', {});
      expect(globex.status).toBe(201);
      expect(globex.body.sessionId).toBe(agentSessionId);
      expect(globex.body.itemCount).toBe(0);
      expect((await as('globex', 'GET', `/v1/sessions/${agentSessionId}/items`)).body.items).toEqual([]);
      expect((await as('acme', 'GET', `/v1/sessions/${agentSessionId}/items`)).body.items.map((entry: { item: object }) => entry.item)).toEqual([
        { text: 'acme item' },
      ]);
      const head = await ledger.service.lastPosition();
      const listed = await as('globex', 'GET', `/v1/namespaces/support/sessions?minPosition=${head}`);
      expect(listed.body.sessions.map((session: { itemCount: number }) => session.itemCount)).toEqual([0]);
    });

    it("keeps each tenant's listings, exports and gateway recovery to its own conversations", async () => {
      const head = await ledger.service.lastPosition();
      const globexSessions = await as('globex', 'GET', `/v1/sessions?minPosition=${head}`);
      expect(globexSessions.body.sessions).toEqual([]);
      expect((await as('globex', 'GET', `/v1/jobs?minPosition=${head}`)).body.jobs).toEqual([]);
      expect((await as('ops', 'GET', `/v1/sessions?minPosition=${head}`)).body.sessions).toEqual([]);
      const acmeSessions = await as('acme', 'GET', `/v1/sessions?minPosition=${head}`);
      expect(acmeSessions.body.sessions.map((entry: { sessionKey: string }) => entry.sessionKey)).toEqual([key]);
      expect(acmeSessions.body.sessions[0]).not.toHaveProperty('tenant');
      expect(Object.keys((await as('acme', 'GET', `/v1/export/sessions.json?minPosition=${head}`)).body)).toEqual([key]);
      expect((await as('globex', 'GET', `/v1/export/sessions.json?minPosition=${head}`)).body).toEqual({});

      // A crash-path start of globex's gateway "gw-1" must not mark acme's conversation (also on gateway gw-1) for resume.
      const started = await as('globex', 'POST', '/v1/gateways/gw-1/started', {});
      expect(started.status).toBeLessThan(300);
      expect(started.body.marked).toEqual([]);
      expect((await as('acme', 'GET', `/v1/conversations/${encodeURIComponent(key)}`)).body.resumePending).toBe(false);
    });

    it('gives two tenants resolving the same chat two separate conversations', async () => {
      const globex = await as('globex', 'POST', '/v1/sessions/resolve', { source, gatewayId: 'gw-1' });
      expect(globex.status).toBe(201);
      expect(globex.body.sessionKey).toBe(key);
      expect(globex.body.sessionId).not.toBe(sessionId);
      const acmeAgain = await as('acme', 'POST', '/v1/sessions/resolve', { source, gatewayId: 'gw-1' });
      expect(acmeAgain.body.sessionId).toBe(sessionId);
      const transcript = await as('globex', 'GET', `/v1/sessions/${globex.body.sessionId}/transcript`);
      expect(transcript.body.messages).toEqual([]);
      const head = await ledger.service.lastPosition();
      const listed = (await as('globex', 'GET', `/v1/sessions?minPosition=${head}`)).body.sessions;
      expect(listed.map((entry: { sessionId: string }) => entry.sessionId)).toEqual([globex.body.sessionId]);
    });

    it("cannot reach a tenant's stream through a crafted key", async () => {
      for (const crafted of [`acme~${key}`, `acme~conversation-${key}`]) {
        const response = await as('ops', 'GET', `/v1/conversations/${encodeURIComponent(crafted)}`);
        expect(response.status).toBe(404);
      }
    });

    it('logs no secret, and names the request in every line written while serving one', async () => {
      await ledger.service.request('GET', '/v1/sessions', { headers: { authorization: `Bearer ${SECRETS.ops}-wrong` } });
      await as('reader', 'POST', '/v1/sessions/resolve', { source, gatewayId: 'gw-1' });
      const text = logText.join('');
      for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret.slice(0, 12));
      const lines = text
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as { msg: string; requestId?: string });
      const requestLines = lines.filter((line) => line.msg === 'request');
      expect(requestLines.length).toBeGreaterThan(50);
      expect(requestLines.filter((line) => !line.requestId)).toEqual([]);
    });

    /** Everything acme has written, stream by stream: another tenant's requests must leave it as it was. */
    async function acmeFootprint() {
      const k = encodeURIComponent(key);
      const revisionsOf = async (path: string) => (await as('acme', 'GET', path)).body.events.map((event: { revision: number }) => event.revision);
      return {
        conversation: await revisionsOf(`/v1/conversations/${k}/events?limit=1000`),
        session: await revisionsOf(`/v1/sessions/${sessionId}/events?limit=1000`),
        child: await revisionsOf(`/v1/sessions/${childId}/events?limit=1000`),
        job: (await as('acme', 'GET', `/v1/jobs/${jobId}`)).body.revision,
        runtime: (await as('acme', 'GET', `/v1/runtime-sessions/${runtimeSessionId}`)).body.revision,
      };
    }
  },
  (backend) => ({ clock: clockOf(backend), logDestination: logsOf(backend).destination, env: { API_TOKEN, LOG_LEVEL: 'debug', JOB_TICK_INTERVAL_MS: '0' } }),
);
