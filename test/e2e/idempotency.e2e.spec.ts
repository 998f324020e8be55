// Idempotency-Key on every write: a repeat writes nothing and gets the first answer again, whatever the route, the
// timing, the tenant or the instance; another request under the same key is refused.
import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import { waitUntil } from '../support/waitUntil.js';

const SECRETS = { acme: 'acme-secret-0123456789abcdef', globex: 'globex-secret-0123456789abcdef' } as const;
const API_TOKEN = `acme-bot:write:acme=${SECRETS.acme},globex-bot:write:globex=${SECRETS.globex}`;
const turn = (text: string) => ({ messages: [{ role: 'user', content: text }], usage: { inputTokens: 3, outputTokens: 1 } });

async function turnTexts(service: TestApp, sessionId: string, headers: Record<string, string> = {}): Promise<string[]> {
  const answer = await service.request('GET', `/v1/sessions/${sessionId}/events?limit=1000`, { headers });
  expect(answer.status).toBe(200);
  return (answer.body.events as Array<{ type: string; data: { messages?: Array<{ content: string }> } }>)
    .filter((event) => event.type === 'TurnRecorded')
    .flatMap((event) => (event.data.messages ?? []).map((message) => message.content));
}

/** Sends a request and hangs up as soon as it is written: the client never sees the answer. */
function sendAndAbort(url: string, path: string, body: unknown, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const text = JSON.stringify(body);
    const request = httpRequest(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers },
    });
    request.on('error', () => resolve());
    request.end(text, () => {
      request.destroy();
      resolve();
    });
  });
}

forEachBackend('idempotent writes', (ledger) => {
  let sessionId: string;
  const keyed = (method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
    ledger.service.request(method, path, { body, headers: { 'idempotency-key': key, ...headers } });

  beforeAll(async () => {
    const resolved = await ledger.service.request('POST', '/v1/sessions/resolve', {
      body: { source: { platform: 'cli', chatType: 'dm', chatId: `idem-${randomUUID()}` } },
    });
    sessionId = resolved.body.sessionId;
  });

  it('runs a keyed write once: the repeat replays status and body with Idempotent-Replayed and writes nothing', async () => {
    const key = randomUUID();
    const first = await keyed('POST', `/v1/sessions/${sessionId}/turns`, key, turn('hello once'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await keyed('POST', `/v1/sessions/${sessionId}/turns`, key, turn('hello once'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.text).toBe(first.text);
    expect((await turnTexts(ledger.service, sessionId)).filter((text) => text === 'hello once')).toHaveLength(1);
  });

  it('a retry after the client hung up before the answer replays what was written', async () => {
    const key = randomUUID();
    await sendAndAbort(ledger.service.url, `/v1/sessions/${sessionId}/turns`, turn('lost answer'), { 'idempotency-key': key });
    await waitUntil(async () => (await turnTexts(ledger.service, sessionId)).includes('lost answer'), 'the abandoned turn to be recorded', 20_000);
    const retry = await keyed('POST', `/v1/sessions/${sessionId}/turns`, key, turn('lost answer'));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await turnTexts(ledger.service, sessionId)).filter((text) => text === 'lost answer')).toHaveLength(1);
  });

  it('20 concurrent duplicates: one runs, the others wait and replay its answer; one turn is written', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => keyed('POST', `/v1/sessions/${sessionId}/turns`, key, turn('twenty at once'))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect((await turnTexts(ledger.service, sessionId)).filter((text) => text === 'twenty at once')).toHaveLength(1);
  });

  it('a keyed resolve that writes nothing records its answer as its claim, in one statement; the repeat replays it', async () => {
    const source = { platform: 'cli', chatType: 'dm', chatId: `idem-warm-${randomUUID()}` };
    expect((await ledger.service.request('POST', '/v1/sessions/resolve', { body: { source } })).status).toBe(201);
    const head = await ledger.service.lastPosition();
    const key = randomUUID();
    const first = await keyed('POST', '/v1/sessions/resolve', key, { source });
    expect(first.status).toBe(200);
    expect(await ledger.service.lastPosition()).toBe(head);
    const rows = await ledger.service.infrastructure.readModelPool.query<{ status: number; attempts: number; lease_until: Date | null }>(
      `SELECT status, attempts, lease_until FROM "${ledger.service.config.readModelSchema}".idempotency_keys WHERE idempotency_key = $1`,
      [key],
    );
    expect(rows.rows).toEqual([{ status: 200, attempts: 1, lease_until: null }]);
    const again = await keyed('POST', '/v1/sessions/resolve', key, { source });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('the same key with another body, path or method answers 422 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
    const key = randomUUID();
    expect((await keyed('POST', `/v1/sessions/${sessionId}/turns`, key, turn('the original'))).status).toBe(201);
    const before = await ledger.service.lastPosition();
    const otherBody = await keyed('POST', `/v1/sessions/${sessionId}/turns`, key, turn('another text'));
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherPath = await keyed('POST', `/v1/sessions/${sessionId}/checkpoints`, key, { label: 'x' });
    expect(otherPath.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherMethod = await keyed('PUT', `/v1/sessions/${sessionId}/memory/note`, key, { value: 'x' });
    expect(otherMethod.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await ledger.service.lastPosition()).toBe(before);
    expect(await turnTexts(ledger.service, sessionId)).not.toContain('another text');
    // Key order and whitespace are not another body.
    const reordered = await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, {
      rawBody: `{ "usage": {"outputTokens": 1, "inputTokens": 3},  "messages": [{"content": "the original", "role": "user"}] }`,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(reordered.status).toBe(201);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys the route the router matched: the path spelt in capitals, percent-encoded or in absolute form is the same request', async () => {
    const key = randomUUID();
    const first = await keyed('POST', `/V1/sessions/${sessionId}/turns`, key, turn('spelt otherwise'));
    expect(first.status).toBe(201);
    for (const path of [`/V1/sessions/${sessionId}/turns`, `/%761/sessions/${sessionId}/turns`, `/v1/Sessions/${sessionId}/turns/`]) {
      const again = await keyed('POST', path, key, turn('spelt otherwise'));
      expect([again.status, again.headers.get('idempotent-replayed')], path).toEqual([201, 'true']);
      expect(again.text).toBe(first.text);
    }
    const absolute = await new Promise<{ status: number; replayed: string | undefined }>((resolve, reject) => {
      const text = JSON.stringify(turn('spelt otherwise'));
      const request = httpRequest(ledger.service.url, {
        method: 'POST',
        path: `${ledger.service.url}/v1/sessions/${sessionId}/turns`,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'idempotency-key': key },
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, replayed: response.headers['idempotent-replayed'] as string | undefined }));
      });
      request.on('error', reject);
      request.end(text);
    });
    expect(absolute).toEqual({ status: 201, replayed: 'true' });
    expect((await turnTexts(ledger.service, sessionId)).filter((text) => text === 'spelt otherwise')).toHaveLength(1);
  });

  it('a refusal (4xx) is replayed as that refusal, even once the request would now succeed', async () => {
    const checkpoint = await ledger.service.request('POST', `/v1/sessions/${sessionId}/checkpoints`, { body: { label: 'before flight' } });
    expect(checkpoint.status).toBe(201);
    expect((await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns/start`, { body: {} })).status).toBeLessThan(300);
    const key = randomUUID();
    const refused = await keyed('POST', `/v1/sessions/${sessionId}/rollback`, key, { checkpointId: checkpoint.body.checkpointId });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('TURN_IN_FLIGHT');
    expect((await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: turn('lands the flight') })).status).toBe(201);
    const replayed = await keyed('POST', `/v1/sessions/${sessionId}/rollback`, key, { checkpointId: checkpoint.body.checkpointId });
    expect(replayed.status).toBe(409);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(refused.text);
    // A new key is a new request, which now succeeds.
    expect((await keyed('POST', `/v1/sessions/${sessionId}/rollback`, randomUUID(), { checkpointId: checkpoint.body.checkpointId })).status).toBe(200);
  });

  it('a keyed resolve that created a session replays "created" on the repeat; session and conversation are written once', async () => {
    const key = randomUUID();
    const source = { platform: 'cli', chatType: 'dm', chatId: `idem-resolve-${randomUUID()}` };
    const first = await keyed('POST', '/v1/sessions/resolve', key, { source });
    expect(first.status).toBe(201);
    expect(first.body.created).toBe(true);
    const before = await ledger.service.lastPosition();
    const again = await keyed('POST', '/v1/sessions/resolve', key, { source });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(await ledger.service.lastPosition()).toBe(before);
  });

  it('refuses a malformed key with 400 INVALID_IDEMPOTENCY_KEY before running anything', async () => {
    const before = await ledger.service.lastPosition();
    for (const bad of ['x'.repeat(256), 'clé-non-ascii', 'tab\there']) {
      const answer = await keyed('POST', `/v1/sessions/${sessionId}/turns`, bad, turn('never'));
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_IDEMPOTENCY_KEY');
    }
    expect(await ledger.service.lastPosition()).toBe(before);
    expect((await keyed('POST', `/v1/sessions/${sessionId}/turns`, 'k'.repeat(255), turn('longest key'))).status).toBe(201);
  });
});

forEachBackend(
  'idempotency keys per tenant',
  (ledger) => {
    const as = (tenant: keyof typeof SECRETS, method: string, path: string, body: unknown, key: string): Promise<TestResponse> =>
      ledger.service.request(method, path, { body, headers: { authorization: `Bearer ${SECRETS[tenant]}`, 'idempotency-key': key } });

    it('one key used by two tenants is two requests: neither replays nor collides with the other', async () => {
      const key = 'shared-key-1';
      const source = { platform: 'cli', chatType: 'dm', chatId: 'same-chat' };
      const acme = await as('acme', 'POST', '/v1/sessions/resolve', { source }, key);
      const globex = await as('globex', 'POST', '/v1/sessions/resolve', { source }, key);
      expect([acme.status, globex.status]).toEqual([201, 201]);
      expect(globex.headers.get('idempotent-replayed')).toBeNull();
      expect(globex.body.sessionId).not.toBe(acme.body.sessionId);
      // The same request body under the same key on another tenant's own session: its own write, not a 422.
      const acmeTurn = await as('acme', 'POST', `/v1/sessions/${acme.body.sessionId}/turns`, turn('acme only'), 'turn-key');
      const globexTurn = await as('globex', 'POST', `/v1/sessions/${globex.body.sessionId}/turns`, turn('globex only'), 'turn-key');
      expect([acmeTurn.status, globexTurn.status]).toEqual([201, 201]);
      expect(globexTurn.headers.get('idempotent-replayed')).toBeNull();
      // Globex repeating acme's exact request gets its own answer (acme's session is not its: 404), never acme's.
      const intruder = await as('globex', 'POST', `/v1/sessions/${acme.body.sessionId}/turns`, turn('acme only'), 'turn-key-acme');
      const acmeAgain = await as('acme', 'POST', `/v1/sessions/${acme.body.sessionId}/turns`, turn('acme only'), 'turn-key');
      expect(intruder.status).toBe(404);
      expect(acmeAgain.headers.get('idempotent-replayed')).toBe('true');
      expect(await turnTexts(ledger.service, acme.body.sessionId, { authorization: `Bearer ${SECRETS.acme}` })).toEqual(['acme only']);
    });
  },
  { env: { API_TOKEN } },
);

if (backendsUnderTest().includes('postgres')) {
  describe('idempotent writes across two instances on one PostgreSQL', () => {
    const schema = uniqueSchema('idem2');
    let one: TestApp;
    let two: TestApp;

    beforeAll(async () => {
      one = await startTestApp('postgres', { schema, keepSchema: true });
      two = await startTestApp('postgres', { schema });
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
    });

    it('duplicates spread over both instances write once; every answer is the first one', async () => {
      const resolved = await one.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'cli', chatType: 'dm', chatId: `two-${randomUUID()}` } },
      });
      const sessionId = resolved.body.sessionId as string;
      for (let round = 0; round < 3; round++) {
        const key = randomUUID();
        const text = `both instances ${round}`;
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            (index % 2 === 0 ? one : two).request('POST', `/v1/sessions/${sessionId}/turns`, { body: turn(text), headers: { 'idempotency-key': key } }),
          ),
        );
        for (const answer of answers) {
          // A duplicate on the other instance waits for the first by polling; one that outwaits it may be told to retry.
          expect([201, 409]).toContain(answer.status);
          if (answer.status === 409) expect(answer.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
        }
        const served = answers.filter((answer) => answer.status === 201);
        expect(new Set(served.map((answer) => answer.text)).size).toBe(1);
        expect(served.filter((answer) => answer.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
        const retry = await two.request('POST', `/v1/sessions/${sessionId}/turns`, { body: turn(text), headers: { 'idempotency-key': key } });
        expect(retry.text).toBe(served[0]!.text);
        expect((await turnTexts(one, sessionId)).filter((recorded) => recorded === text)).toHaveLength(1);
      }
    });

    it('a first attempt and its duplicate on the other instance both appending: the duplicate waits on the key, writes nothing and answers the first answer', async () => {
      const resolved = await one.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'cli', chatType: 'dm', chatId: `race-${randomUUID()}` } },
      });
      const sessionId = resolved.body.sessionId as string;
      // Both instances have the session cached: each decides at once and goes straight to its append.
      expect((await two.request('POST', `/v1/sessions/${sessionId}/turns`, { body: turn('cached on both') })).status).toBe(201);
      expect((await one.request('POST', `/v1/sessions/${sessionId}/turns`, { body: turn('cached on both, again') })).status).toBe(201);
      const blocker = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      const monitor = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await blocker.connect();
      await monitor.connect();
      try {
        // Appends with a claim waiting on a lock: the first on the session's row, which this test holds; the second on the first's key.
        const waiting = async () =>
          Number(
            (
              await monitor.query<{ count: string }>(
                `SELECT count(*) AS count FROM pg_stat_activity WHERE state = 'active' AND wait_event_type = 'Lock'
                 AND query LIKE 'WITH claim AS (INSERT INTO "${one.config.readModelSchema}".idempotency_keys%'`,
              )
            ).rows[0]!.count,
          );
        await blocker.query('BEGIN');
        await blocker.query(`SELECT revision FROM "${one.config.eventStoreSchema}".streams WHERE stream_name = $1 FOR UPDATE`, [sessionStreamName(sessionId)]);
        const key = randomUUID();
        const send = (service: TestApp) =>
          service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: turn('raced'), headers: { 'idempotency-key': key } });
        const first = send(one);
        await waitUntil(async () => (await waiting()) === 1, 'the first attempt at its append', 20_000);
        const second = send(two);
        await waitUntil(async () => (await waiting()) === 2, 'the duplicate waiting on the key', 20_000);
        await blocker.query('COMMIT');
        const [firstAnswer, secondAnswer] = await Promise.all([first, second]);
        expect([firstAnswer.status, secondAnswer.status]).toEqual([201, 201]);
        expect(firstAnswer.headers.get('idempotent-replayed')).toBeNull();
        expect(secondAnswer.headers.get('idempotent-replayed')).toBe('true');
        expect(secondAnswer.text).toBe(firstAnswer.text);
        expect((await turnTexts(one, sessionId)).filter((recorded) => recorded === 'raced')).toHaveLength(1);
      } finally {
        await blocker.end();
        await monitor.end();
      }
    });
  });
}
