// Fenced writes: a read answers its stream revision as an ETag, a write sent with If-Match goes ahead only at that
// revision (412 PRECONDITION_FAILED, nothing written), and a turn recorded under a superseded lease is refused
// (409 LEASE_LOST) instead of landing late. On PostgreSQL the same holds across two instances sharing one log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerApiError } from '../../src/client/index.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { apiErrorOf, forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { telegramSource } from '../support/sources.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';
import { uniqueSchema } from '../support/testDatabases.js';

const enc = encodeURIComponent;
const said = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

forEachBackend('fenced writes', (ledger) => {
  let chat = 0;

  async function newSession(gatewayId?: string): Promise<{ sessionId: string; sessionKey: string }> {
    const resolved = await ledger.client.resolveSession({
      source: telegramSource(`fence-${ledger.backend}-${++chat}`),
      ...(gatewayId ? { gatewayId } : {}),
    });
    expect(resolved.created).toBe(true);
    return { sessionId: resolved.sessionId, sessionKey: resolved.sessionKey };
  }
  const eventTypes = async (sessionId: string) =>
    (await ledger.service.infrastructure.eventStore.readStream(sessionStreamName(sessionId))).map((event) => event.type);

  it('answers a session read with its revision as an ETag, and takes a write whose If-Match names it', async () => {
    const { service } = ledger;
    const { sessionId } = await newSession();
    const read = await service.request('GET', `/v1/sessions/${sessionId}`);
    expect(read.headers.get('etag')).toBe(`"${read.body.revision}"`);
    const written = await service.request('POST', `/v1/sessions/${sessionId}/turns`, {
      body: said('hello'),
      headers: { 'If-Match': read.headers.get('etag')! },
    });
    expect(written.status, written.text).toBe(201);
    expect((await service.request('GET', `/v1/sessions/${sessionId}`)).headers.get('etag')).toBe(`"${written.body.revision}"`);
  });

  it('refuses a write whose If-Match is stale with 412 and the current revision, and writes nothing', async () => {
    const { service } = ledger;
    const { sessionId } = await newSession();
    const stale = (await service.request('GET', `/v1/sessions/${sessionId}`)).headers.get('etag')!;
    expect((await service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: said('first') })).status).toBe(201);
    const before = await eventTypes(sessionId);
    for (const [method, path, body] of [
      ['POST', `/v1/sessions/${sessionId}/turns`, said('late')],
      ['POST', `/v1/sessions/${sessionId}/checkpoints`, { label: 'late' }],
      ['PUT', `/v1/sessions/${sessionId}/memory/topic`, { value: 'late' }],
      ['POST', `/v1/sessions/${sessionId}/rewind`, { turns: 1 }],
      ['POST', `/v1/sessions/${sessionId}/items`, { items: [{ id: 'late', type: 'message' }] }],
      ['POST', `/v1/sessions/${sessionId}/items/pop`, undefined],
      ['DELETE', `/v1/sessions/${sessionId}/items`, undefined],
    ] as const) {
      const refused = await service.request(method, path, { body, headers: { 'If-Match': stale } });
      expect(refused.status, `${method} ${path}: ${refused.text}`).toBe(412);
      expect(refused.body.error.code).toBe('PRECONDITION_FAILED');
      expect(refused.body.error.details.currentRevision).toBe(before.length - 1);
    }
    expect(await eventTypes(sessionId)).toEqual(before);
  });

  it('fences conversation writes by the conversation stream, and takes * for any existing stream', async () => {
    const { service } = ledger;
    const { sessionKey } = await newSession();
    const read = await service.request('GET', `/v1/conversations/${enc(sessionKey)}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(`"${read.body.revision}"`);
    const reset = await service.request('POST', `/v1/conversations/${enc(sessionKey)}/reset`, {
      body: {},
      headers: { 'If-Match': read.headers.get('etag')! },
    });
    expect(reset.status, reset.text).toBe(200);
    // The reset moved the conversation: the same tag is stale now.
    const again = await service.request('POST', `/v1/conversations/${enc(sessionKey)}/reset`, {
      body: {},
      headers: { 'If-Match': read.headers.get('etag')! },
    });
    expect(again.status, again.text).toBe(412);
    expect(again.body.error.code).toBe('PRECONDITION_FAILED');
    // PATCH writes the session but is fenced by the conversation it names.
    const patched = await service.request('PATCH', `/v1/conversations/${enc(sessionKey)}`, {
      body: { lastPromptTokens: 5 },
      headers: { 'If-Match': read.headers.get('etag')! },
    });
    expect(patched.status, patched.text).toBe(412);
    const any = await service.request('POST', `/v1/conversations/${enc(sessionKey)}/suspend`, { body: {}, headers: { 'If-Match': '*' } });
    expect(any.status, any.text).toBe(200);
    // A write that would fail without its precondition fails as it would (RFC 9110 13.2.1): no conversation, 404.
    const missing = await service.request('POST', `/v1/conversations/${enc('agent:main:telegram:dm:never')}/suspend`, {
      body: {},
      headers: { 'If-Match': '*' },
    });
    expect(missing.status, missing.text).toBe(404);
  });

  it('says what is wrong with an If-Match it cannot read, or one sent where it does not apply', async () => {
    const { service } = ledger;
    const { sessionId } = await newSession();
    const weak = await service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: said('x'), headers: { 'If-Match': 'W/"1"' } });
    expect(weak.status).toBe(400);
    expect(weak.body.error.code).toBe('INVALID_IF_MATCH');
    const elsewhere = await refusalOf(ledger.client.resolveSession({ source: telegramSource('fence-elsewhere') }, { ifMatch: 0 }));
    expect(elsewhere).toEqual({ status: 400, code: 'IF_MATCH_NOT_SUPPORTED' });
    expect(await eventTypes(sessionId)).toEqual(['SessionCreated']);
  });

  it('records a turn under its lease, and refuses one whose turn was given up and started again (409 LEASE_LOST)', async () => {
    const { client } = ledger;
    const { sessionId } = await newSession('fence-gw');
    // Starting a turn answers 201, recording one 201 and a gateway's start 200, and nothing else when they succeed.
    const first = await client.startTurn(sessionId);
    expect(Number.isInteger(first.lease)).toBe(true);
    await client.recordTurn(sessionId, { ...said('in time'), lease: first.lease });

    const slow = await client.startTurn(sessionId);
    // The runtime holding `slow` stalls; a gateway restart gives its turn up, and another worker starts the next one.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const restart = await client.gatewayStarted('fence-gw', { bootId: 'boot-2' });
    expect(restart.abandonedTurns).toEqual([{ sessionId, turnIndex: 2 }]);
    const events = await eventTypes(sessionId);
    expect(events.at(-1)).toBe('TurnAbandoned');
    const takeover = await client.startTurn(sessionId);
    expect(takeover.lease).toBeGreaterThan(slow.lease);

    const late = await apiErrorOf(client.recordTurn(sessionId, { ...said('too late'), lease: slow.lease }));
    expect([late.status, late.code]).toEqual([409, 'LEASE_LOST']);
    expect(late.details).toMatchObject({ currentLease: takeover.lease });
    expect((await eventTypes(sessionId)).at(-1)).toBe('TurnStarted');
    await client.recordTurn(sessionId, { ...said('the new holder'), lease: takeover.lease });
    // Once recorded, no turn is in flight: the lease is spent too.
    expect(await refusalOf(client.recordTurn(sessionId, { ...said('again'), lease: takeover.lease }))).toEqual({ status: 409, code: 'LEASE_LOST' });
  });

  it('the typed client sends If-Match (ifMatch) and a lease, and reads the refusals as errors with their codes', async () => {
    const { client } = ledger;
    const { sessionId } = await newSession();
    const { revision } = await client.getSession(sessionId);
    const started = await client.startTurn(sessionId, { ifMatch: revision });
    const stale = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'hi' }] }, { ifMatch: revision }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(LedgerApiError);
    expect((stale as LedgerApiError).status).toBe(412);
    expect((stale as LedgerApiError).code).toBe('PRECONDITION_FAILED');
    const recorded = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'hi' }], lease: started.lease }, { ifMatch: started.revision });
    expect(recorded.turnIndex).toBe(1);
    const late = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'again' }], lease: started.lease }).catch((error: unknown) => error);
    expect((late as LedgerApiError).code).toBe('LEASE_LOST');
  });
});

// Two instances share a log only on PostgreSQL: the case exists where that backend is under test.
if (e2eBackends().includes('postgres')) {
  describe('fenced writes across two instances: postgres', () => {
    let a: TestApp;
    let b: TestApp;
    const schema = uniqueSchema('fence');

    beforeAll(async () => {
      a = await startTestApp('postgres', { schema, keepSchema: true });
      b = await startTestApp('postgres', { schema });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('refuses on one instance a write fenced by a revision the other moved past, even with its own cache warm', async () => {
      const resolved = await a.request('POST', '/v1/sessions/resolve', { body: { source: { platform: 'telegram', chatType: 'dm', chatId: 'fence-two' } } });
      const { sessionId } = resolved.body;
      // Both instances hold the session in their caches.
      const seenByA = await a.request('GET', `/v1/sessions/${sessionId}`);
      expect((await b.request('GET', `/v1/sessions/${sessionId}`)).headers.get('etag')).toBe(seenByA.headers.get('etag'));
      expect((await b.request('POST', `/v1/sessions/${sessionId}/turns`, { body: said('from b') })).status).toBe(201);
      const refused = await a.request('POST', `/v1/sessions/${sessionId}/turns`, {
        body: said('from a, stale'),
        headers: { 'If-Match': seenByA.headers.get('etag')! },
      });
      expect(refused.status, refused.text).toBe(412);
      expect(refused.body.error.details.currentRevision).toBe(Number(JSON.parse(seenByA.headers.get('etag')!)) + 1);
      const fresh = (await a.request('GET', `/v1/sessions/${sessionId}`)).headers.get('etag')!;
      expect((await a.request('POST', `/v1/sessions/${sessionId}/turns`, { body: said('from a'), headers: { 'If-Match': fresh } })).status).toBe(201);
    });
  });
}
