// Two calls of Hermes' SessionStore the API answers directly: update_session(key, last_prompt_tokens) as
// PATCH /v1/conversations/{key} (the count set without a turn), and has_any_sessions as GET /v1/session-count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';

const enc = encodeURIComponent;
const SECRETS = { alpha: 'alpha-secret-0123456789abcdef', beta: 'beta-secret-0123456789abcdef', gamma: 'gamma-secret-0123456789abcdef' } as const;
type Tenant = keyof typeof SECRETS;
const API_TOKEN = (Object.keys(SECRETS) as Tenant[]).map((tenant) => `${tenant}-bot:write:${tenant}=${SECRETS[tenant]}`).join(',');
const MAX_TURN_TOKENS = 1_000_000;

for (const backend of e2eBackends()) {
  describe(`Hermes' update_session and has_any_sessions through HTTP (${backend})`, () => {
    let service: TestApp;
    let chat = 0;
    const as = (tenant: Tenant, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<TestResponse> =>
      service.request(method, path, { body: options.body, headers: { authorization: `Bearer ${SECRETS[tenant]}`, ...options.headers } });
    const open = async (tenant: Tenant = 'alpha') => {
      const resolved = await as(tenant, 'POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'telegram', chatType: 'dm', chatId: `store-${++chat}` } },
      });
      expect(resolved.status, resolved.text).toBe(201);
      return resolved.body as { sessionKey: string; sessionId: string; position: number };
    };
    const patch = (key: string, body: unknown, headers: Record<string, string> = {}) =>
      as('alpha', 'PATCH', `/v1/conversations/${enc(key)}`, { body, headers });
    const eventTypes = async (sessionId: string) =>
      ((await as('alpha', 'GET', `/v1/sessions/${sessionId}/events?limit=1000`)).body.events as { type: string }[]).map((event) => event.type);
    const sessionCount = (tenant: Tenant, query = '') => as(tenant, 'GET', `/v1/session-count${query}`);

    beforeAll(async () => {
      service = await startTestApp(backend, {
        env: { API_TOKEN, MAX_TURN_TOKENS: String(MAX_TURN_TOKENS), RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' },
      });
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    describe('PATCH /v1/conversations/{key} {lastPromptTokens}', () => {
      it("sets the current session's count without a turn: its own event, no message, the other counters kept, shown in the entry, the record and the export", async () => {
        const { sessionKey, sessionId } = await open();
        const turn = await as('alpha', 'POST', `/v1/sessions/${sessionId}/turns`, {
          body: { messages: [{ role: 'user', content: 'hi' }], usage: { inputTokens: 10, lastPromptTokens: 500 } },
        });
        expect(turn.status, turn.text).toBe(201);

        const set = await patch(sessionKey, { lastPromptTokens: 1234 });
        expect(set.status, set.text).toBe(200);
        expect(set.body).toMatchObject({
          sessionKey,
          sessionId,
          changed: true,
          entry: { sessionKey, sessionId, lastPromptTokens: 1234, inputTokens: 10, totalTokens: 10, turnCount: 1 },
        });
        expect(set.body.position).toBeGreaterThan(turn.body.position);

        const session = await as('alpha', 'GET', `/v1/sessions/${sessionId}`);
        expect(session.body).toMatchObject({ turnCount: 1, counters: { lastPromptTokens: 1234, inputTokens: 10 } });
        expect((await as('alpha', 'GET', `/v1/sessions/${sessionId}/transcript`)).body.messages).toHaveLength(1);
        expect((await eventTypes(sessionId)).slice(-2)).toEqual(['TurnRecorded', 'LastPromptTokensSet']);
        expect((await as('alpha', 'GET', `/v1/conversations/${enc(sessionKey)}`)).body).toMatchObject({ lastPromptTokens: 1234, turnCount: 1 });

        const after = `minPosition=${set.body.position}`;
        const entry = await as('alpha', 'GET', `/v1/conversations/${enc(sessionKey)}/entry?${after}`);
        expect(entry.body).toMatchObject({ lastPromptTokens: 1234, inputTokens: 10, turnCount: 1 });
        // Hermes' update_session touches the entry.
        expect(Date.parse(entry.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(session.body.updatedAt));
        expect((await as('alpha', 'GET', `/v1/sessions/${sessionId}/record?${after}`)).body).toMatchObject({ lastPromptTokens: 1234, turnCount: 1 });
        expect((await as('alpha', 'GET', `/v1/export/sessions.json?${after}`)).body[sessionKey]).toMatchObject({ last_prompt_tokens: 1234 });
      });

      it('is idempotent: the count the session holds writes nothing, and a keyed retry replays the first answer', async () => {
        const { sessionKey, sessionId } = await open();
        const first = await patch(sessionKey, { lastPromptTokens: 77 }, { 'idempotency-key': `prompt-${chat}` });
        const retry = await patch(sessionKey, { lastPromptTokens: 77 }, { 'idempotency-key': `prompt-${chat}` });
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(retry.body).toEqual(first.body);
        const again = await patch(sessionKey, { lastPromptTokens: 77 });
        expect(again.status, again.text).toBe(200);
        expect(again.body).toMatchObject({ changed: false, sessionId, entry: { lastPromptTokens: 77 }, position: first.body.position });
        // A new session starts at 0: setting 0 there changes nothing either.
        const { sessionKey: fresh } = await open();
        expect((await patch(fresh, { lastPromptTokens: 0 })).body.changed).toBe(false);
        expect((await eventTypes(sessionId)).filter((type) => type === 'LastPromptTokensSet')).toHaveLength(1);
      });

      it.each([
        ['a negative count', { lastPromptTokens: -1 }],
        ['a fraction', { lastPromptTokens: 1.5 }],
        ['a string', { lastPromptTokens: '12' }],
        ['null', { lastPromptTokens: null }],
        ['no count', {}],
        ['a field it does not take', { lastPromptTokens: 1, inputTokens: 2 }],
        ['a count past the safe integers', { lastPromptTokens: 2 ** 53 }],
      ])('refuses %s with 400 VALIDATION_FAILED and writes nothing', async (_case, body) => {
        const { sessionKey, sessionId } = await open();
        const refused = await patch(sessionKey, body);
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
        expect(JSON.stringify(refused.body.error.details)).toMatch(/lastPromptTokens|inputTokens/);
        expect(await eventTypes(sessionId)).toEqual(['SessionCreated']);
      });

      it('refuses a count one turn could not report (MAX_TURN_TOKENS) with 400 TURN_USAGE_TOO_LARGE', async () => {
        const { sessionKey, sessionId } = await open();
        const refused = await patch(sessionKey, { lastPromptTokens: MAX_TURN_TOKENS + 1 });
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.error).toMatchObject({ code: 'TURN_USAGE_TOO_LARGE', details: { field: 'lastPromptTokens', limit: MAX_TURN_TOKENS } });
        expect((await patch(sessionKey, { lastPromptTokens: MAX_TURN_TOKENS })).body.changed).toBe(true);
        expect(await eventTypes(sessionId)).toEqual(['SessionCreated', 'LastPromptTokensSet']);
      });

      it("goes to the session the key points at: after a reset the new one; 404 for an unknown key or another tenant's", async () => {
        const { sessionKey, sessionId } = await open();
        await patch(sessionKey, { lastPromptTokens: 300 });
        const reset = await as('alpha', 'POST', `/v1/conversations/${enc(sessionKey)}/reset`);
        const next = await patch(sessionKey, { lastPromptTokens: 40 });
        expect(next.body).toMatchObject({ sessionId: reset.body.sessionId, changed: true, entry: { lastPromptTokens: 40 } });
        expect((await as('alpha', 'GET', `/v1/sessions/${sessionId}`)).body.counters.lastPromptTokens).toBe(300);

        const unknown = await patch('agent:main:telegram:dm:nobody', { lastPromptTokens: 1 });
        expect([unknown.status, unknown.body.error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
        const otherTenant = await as('beta', 'PATCH', `/v1/conversations/${enc(sessionKey)}`, { body: { lastPromptTokens: 1 } });
        expect([otherTenant.status, otherTenant.body.error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
      });
    });

    describe('GET /v1/session-count', () => {
      it("answers Hermes' has_any_sessions (atLeast=2): false on the first message ever, true once a second session exists, ended ones and children included", async () => {
        expect((await sessionCount('gamma')).body).toEqual({ count: 0, atLeast: 1, reached: false });
        const { sessionKey, position } = await open('gamma');
        const first = await sessionCount('gamma', `?atLeast=2&minPosition=${position}`);
        expect(first.status, first.text).toBe(200);
        expect(first.body).toEqual({ count: 1, atLeast: 2, reached: false });

        // A reset ends the first session: it still counts, as Hermes counts every state.db session ended or not.
        const reset = await as('gamma', 'POST', `/v1/conversations/${enc(sessionKey)}/reset`);
        expect((await sessionCount('gamma', `?atLeast=2&minPosition=${reset.body.position}`)).body).toEqual({ count: 2, atLeast: 2, reached: true });

        const child = await as('gamma', 'POST', `/v1/sessions/${reset.body.sessionId}/children`, { body: { agentName: 'helper' } });
        expect(child.status, child.text).toBe(201);
        expect((await sessionCount('gamma', `?atLeast=1000&minPosition=${child.body.position}`)).body).toEqual({ count: 3, atLeast: 1000, reached: false });
        expect((await sessionCount('gamma', '?atLeast=3')).body).toEqual({ count: 3, atLeast: 3, reached: true });
      });

      it("counts only the caller's tenant", async () => {
        const before = (await sessionCount('beta', '?atLeast=1000')).body.count as number;
        const opened = await open('alpha');
        const alpha = await sessionCount('alpha', `?atLeast=1000&minPosition=${opened.position}`);
        expect(alpha.body.count).toBeGreaterThan(0);
        expect((await sessionCount('beta', '?atLeast=1000')).body.count).toBe(before);
      });

      it.each(['?atLeast=0', '?atLeast=1001', '?atLeast=two', '?atLeast=1.5', '?limit=1'])('refuses %s with 400 VALIDATION_FAILED', async (query) => {
        const refused = await sessionCount('alpha', query);
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      });
    });
  });
}
