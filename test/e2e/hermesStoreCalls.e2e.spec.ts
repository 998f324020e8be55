// Two calls of Hermes' SessionStore the API answers directly: update_session(key, last_prompt_tokens) as
// PATCH /v1/conversations/{key} (the count set without a turn), and has_any_sessions as GET /v1/session-count.
import { describe, expect, it } from 'vitest';
import type { LedgerClient } from '../../src/client/index.js';
import { apiErrorOf, forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { telegramSource } from '../support/sources.js';
import type { TestResponse } from '../support/testApp.js';

const enc = encodeURIComponent;
const SECRETS = { alpha: 'alpha-secret-0123456789abcdef', beta: 'beta-secret-0123456789abcdef', gamma: 'gamma-secret-0123456789abcdef' } as const;
type Tenant = keyof typeof SECRETS;
const API_TOKEN = (Object.keys(SECRETS) as Tenant[]).map((tenant) => `${tenant}-bot:write:${tenant}=${SECRETS[tenant]}`).join(',');
const MAX_TURN_TOKENS = 1_000_000;

forEachBackend(
  "Hermes' update_session and has_any_sessions through HTTP",
  (ledger) => {
    let chat = 0;
    const clients: Partial<Record<Tenant, LedgerClient>> = {};
    /** The tenant's client, one for the whole block. */
    const as = (tenant: Tenant) => (clients[tenant] ??= ledger.newClient({ token: SECRETS[tenant] }));
    /** Raw, for what the typed client never sends (bodies and queries the service refuses) and the replay header. */
    const raw = (tenant: Tenant, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<TestResponse> =>
      ledger.service.request(method, path, { body: options.body, headers: { authorization: `Bearer ${SECRETS[tenant]}`, ...options.headers } });
    const open = async (tenant: Tenant = 'alpha') => {
      const resolved = await as(tenant).resolveSession({ source: telegramSource(`store-${++chat}`) });
      expect(resolved.created).toBe(true);
      return resolved;
    };
    const patch = (key: string, lastPromptTokens: number) => as('alpha').updateConversation(key, { lastPromptTokens });
    const eventTypes = async (sessionId: string) => (await as('alpha').sessionEvents(sessionId, { limit: 1000 })).events.map((event) => event.type);
    const sessionCount = (tenant: Tenant, atLeast?: number, minPosition?: number) =>
      as(tenant).sessionCount(atLeast === undefined ? {} : { atLeast }, minPosition === undefined ? {} : { minPosition });

    describe('PATCH /v1/conversations/{key} {lastPromptTokens}', () => {
      it("sets the current session's count without a turn: its own event, no message, the other counters kept, shown in the entry, the record and the export", async () => {
        const client = as('alpha');
        const { sessionKey, sessionId } = await open();
        const turn = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'hi' }], usage: { inputTokens: 10, lastPromptTokens: 500 } });

        const set = await patch(sessionKey, 1234);
        expect(set).toMatchObject({
          sessionKey,
          sessionId,
          changed: true,
          entry: { sessionKey, sessionId, lastPromptTokens: 1234, inputTokens: 10, totalTokens: 10, turnCount: 1 },
        });
        expect(set.position).toBeGreaterThan(turn.position);

        const session = await client.getSession(sessionId);
        expect(session).toMatchObject({ turnCount: 1, counters: { lastPromptTokens: 1234, inputTokens: 10 } });
        expect((await client.getTranscript(sessionId)).messages).toHaveLength(1);
        expect((await eventTypes(sessionId)).slice(-2)).toEqual(['TurnRecorded', 'LastPromptTokensSet']);
        expect(await client.getConversation(sessionKey)).toMatchObject({ lastPromptTokens: 1234, turnCount: 1 });

        const after = { minPosition: set.position };
        const entry = await client.sessionByKey(sessionKey, after);
        expect(entry).toMatchObject({ lastPromptTokens: 1234, inputTokens: 10, turnCount: 1 });
        // Hermes' update_session touches the entry.
        expect(Date.parse(entry.updatedAt)).toBeGreaterThanOrEqual(Date.parse(session.updatedAt));
        expect(await client.sessionRecord(sessionId, after)).toMatchObject({ lastPromptTokens: 1234, turnCount: 1 });
        expect((await client.exportSessionsJson(after))[sessionKey]).toMatchObject({ last_prompt_tokens: 1234 });
      });

      it('is idempotent: the count the session holds writes nothing, and a keyed retry replays the first answer', async () => {
        const { sessionKey, sessionId } = await open();
        const idempotencyKey = `prompt-${chat}`;
        const first = await as('alpha').updateConversation(sessionKey, { lastPromptTokens: 77 }, { idempotencyKey });
        // Raw, for the header that says the answer is a replay.
        const retry = await raw('alpha', 'PATCH', `/v1/conversations/${enc(sessionKey)}`, {
          body: { lastPromptTokens: 77 },
          headers: { 'idempotency-key': idempotencyKey },
        });
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(retry.body).toEqual(first);
        const again = await patch(sessionKey, 77);
        expect(again).toMatchObject({ changed: false, sessionId, entry: { lastPromptTokens: 77 }, position: first.position });
        // A new session starts at 0: setting 0 there changes nothing either.
        const { sessionKey: fresh } = await open();
        expect((await patch(fresh, 0)).changed).toBe(false);
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
        const refused = await raw('alpha', 'PATCH', `/v1/conversations/${enc(sessionKey)}`, { body });
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
        expect(JSON.stringify(refused.body.error.details)).toMatch(/lastPromptTokens|inputTokens/);
        expect(await eventTypes(sessionId)).toEqual(['SessionCreated']);
      });

      it('refuses a count one turn could not report (MAX_TURN_TOKENS) with 400 TURN_USAGE_TOO_LARGE', async () => {
        const { sessionKey, sessionId } = await open();
        const refused = await apiErrorOf(patch(sessionKey, MAX_TURN_TOKENS + 1));
        expect(refused.status).toBe(400);
        expect({ code: refused.code, details: refused.details }).toMatchObject({
          code: 'TURN_USAGE_TOO_LARGE',
          details: { field: 'lastPromptTokens', limit: MAX_TURN_TOKENS },
        });
        expect((await patch(sessionKey, MAX_TURN_TOKENS)).changed).toBe(true);
        expect(await eventTypes(sessionId)).toEqual(['SessionCreated', 'LastPromptTokensSet']);
      });

      it("goes to the session the key points at: after a reset the new one; 404 for an unknown key or another tenant's", async () => {
        const client = as('alpha');
        const { sessionKey, sessionId } = await open();
        await patch(sessionKey, 300);
        const reset = await client.resetConversation(sessionKey);
        const next = await patch(sessionKey, 40);
        expect(next).toMatchObject({ sessionId: reset.sessionId, changed: true, entry: { lastPromptTokens: 40 } });
        expect((await client.getSession(sessionId)).counters.lastPromptTokens).toBe(300);

        expect(await refusalOf(patch('agent:main:telegram:dm:nobody', 1))).toEqual({ status: 404, code: 'CONVERSATION_NOT_FOUND' });
        expect(await refusalOf(as('beta').updateConversation(sessionKey, { lastPromptTokens: 1 }))).toEqual({ status: 404, code: 'CONVERSATION_NOT_FOUND' });
      });
    });

    describe('GET /v1/session-count', () => {
      it("answers Hermes' has_any_sessions (atLeast=2): false on the first message ever, true once a second session exists, ended ones and children included", async () => {
        const client = as('gamma');
        expect(await sessionCount('gamma')).toEqual({ count: 0, atLeast: 1, reached: false });
        const { sessionKey, position } = await open('gamma');
        expect(await sessionCount('gamma', 2, position)).toEqual({ count: 1, atLeast: 2, reached: false });

        // A reset ends the first session: it still counts, as Hermes counts every state.db session ended or not.
        const reset = await client.resetConversation(sessionKey);
        expect(await sessionCount('gamma', 2, reset.position)).toEqual({ count: 2, atLeast: 2, reached: true });

        const child = await client.createChild(reset.sessionId, { agentName: 'helper' });
        expect(await sessionCount('gamma', 1000, child.position)).toEqual({ count: 3, atLeast: 1000, reached: false });
        expect(await sessionCount('gamma', 3)).toEqual({ count: 3, atLeast: 3, reached: true });
      });

      it("counts only the caller's tenant", async () => {
        const before = (await sessionCount('beta', 1000)).count;
        const opened = await open('alpha');
        const alpha = await sessionCount('alpha', 1000, opened.position);
        expect(alpha.count).toBeGreaterThan(0);
        expect((await sessionCount('beta', 1000)).count).toBe(before);
      });

      it.each(['?atLeast=0', '?atLeast=1001', '?atLeast=two', '?atLeast=1.5', '?limit=1'])('refuses %s with 400 VALIDATION_FAILED', async (query) => {
        const refused = await raw('alpha', 'GET', `/v1/session-count${query}`);
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      });
    });
  },
  { env: { API_TOKEN, MAX_TURN_TOKENS: String(MAX_TURN_TOKENS), RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' } },
);
