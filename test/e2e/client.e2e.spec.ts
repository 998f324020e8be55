// The typed client against the real service: answers as typed, typed errors, which 409s it retries, read-your-writes, event streams.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldsOf } from '../../src/client/exhaustiveFields.js';
import { LedgerApiError, LedgerClient, LedgerNetworkError } from '../../src/client/index.js';
import type {
  DequeueResponse,
  EnqueueResponse,
  LifecycleEvent,
  RecordTurnResponse,
  ResolveResponse,
  SessionEntry,
  TranscriptResponse,
} from '../../src/client/index.js';
import { freePort } from '../support/serviceProcess.js';
import { forEachBackend } from '../support/forEachBackend.js';

const TOKEN = 'client-e2e-token-0123456789';

/** Every field each response type declares: the compiler holds the lists equal to the types, the test to the answers. */
const responseFields = {
  resolve: fieldsOf<ResolveResponse>()(
    'sessionKey',
    'sessionId',
    'state',
    'created',
    'wasAutoReset',
    'autoResetReason',
    'resetHadActivity',
    'notice',
    'entry',
    'position',
  ),
  entry: fieldsOf<SessionEntry>()(
    'sessionKey',
    'sessionId',
    'createdAt',
    'updatedAt',
    'origin',
    'displayName',
    'platform',
    'chatType',
    'gatewayId',
    'suspended',
    'resumePending',
    'resumeReason',
    'lastResumeMarkedAt',
    'wasAutoReset',
    'autoResetReason',
    'resetHadActivity',
    'isFreshReset',
    'expiryFinalized',
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheWriteTokens',
    'totalTokens',
    'estimatedCostUsd',
    'lastPromptTokens',
    'costStatus',
    'turnCount',
    'resetPolicy',
    'sessionIds',
  ),
  turn: fieldsOf<RecordTurnResponse>()('turnIndex', 'revision', 'position', 'counters', 'checkpointId'),
  transcript: fieldsOf<TranscriptResponse>()('sessionId', 'messages', 'revision', 'position'),
  enqueue: fieldsOf<EnqueueResponse>()('messageId', 'placement', 'coalescedInto', 'depth', 'interruptRequested', 'position'),
  dequeue: fieldsOf<DequeueResponse>()('message', 'from', 'depth', 'position'),
};

/** Real fetch, counting requests and keeping their headers. */
function recordingFetch() {
  const requests: Array<{ method: string; url: string; headers: Record<string, string> }> = [];
  const recorded: typeof fetch = (input, init) => {
    requests.push({ method: init?.method ?? 'GET', url: String(input), headers: { ...(init?.headers as Record<string, string>) } });
    return fetch(input, init);
  };
  return { fetch: recorded, requests };
}

async function take<T>(iterator: AsyncIterable<T>, count: number): Promise<T[]> {
  const taken: T[] = [];
  for await (const item of iterator) {
    taken.push(item);
    if (taken.length === count) break;
  }
  return taken;
}

forEachBackend(
  'typed client',
  (ledger) => {
    let chat = 0;
    const source = () => ({ platform: 'web', chatType: 'dm' as const, chatId: `${ledger.backend}-${++chat}`, userName: 'Alice' });

    it('resolves, records turns, queues and reads back, with every field its types declare', async () => {
      const client = new LedgerClient({ baseUrl: ledger.service.url, token: TOKEN });
      const resolved = await client.resolveSession({ source: source(), gatewayId: 'client-test' });
      expect(Object.keys(resolved)).toEqual(expect.arrayContaining([...responseFields.resolve]));
      expect(Object.keys(resolved.entry)).toEqual(expect.arrayContaining([...responseFields.entry]));
      expect(resolved).toMatchObject({ state: 'cold', created: true, entry: { gatewayId: 'client-test' } });

      const turn = await client.recordTurn(resolved.sessionId, {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
        usage: { inputTokens: 3, outputTokens: 2 },
      });
      expect(Object.keys(turn)).toEqual(expect.arrayContaining([...responseFields.turn]));
      expect(turn).toMatchObject({ turnIndex: 1, counters: { totalTokens: 5 } });
      const transcript = await client.getTranscript(resolved.sessionId);
      expect(Object.keys(transcript)).toEqual(expect.arrayContaining([...responseFields.transcript]));
      expect(transcript.messages.map((message) => message.content)).toEqual(['hi', 'hello']);

      const queued = await client.enqueue(resolved.sessionKey, { message: { id: 'm-1', text: 'later' }, mode: 'queue' });
      expect(Object.keys(queued)).toEqual(expect.arrayContaining([...responseFields.enqueue]));
      const next = await client.nextQueued(resolved.sessionKey);
      expect(Object.keys(next!)).toEqual(expect.arrayContaining([...responseFields.dequeue]));
      expect(next!.message).toMatchObject({ id: 'm-1', text: 'later' });
      expect(await client.nextQueued(resolved.sessionKey)).toBeNull();
    });

    it('reads its own writes: queries carry the highest position its commands wrote', async () => {
      const recording = recordingFetch();
      const client = new LedgerClient({ baseUrl: ledger.service.url, token: TOKEN, fetch: recording.fetch });
      const resolved = await client.resolveSession({ source: source() });
      const turn = await client.recordTurn(resolved.sessionId, { messages: [{ role: 'user', content: 'count me' }] });
      expect(client.position).toBe(turn.position);
      // The sessions index is a projection: without the header this read could come before the turn landed.
      const entry = await client.sessionByKey(resolved.sessionKey);
      expect(entry.turnCount).toBe(1);
      const read = recording.requests.at(-1)!;
      expect(read.headers['x-min-position']).toBe(String(turn.position));
      expect(recording.requests.filter((request) => request.method !== 'GET').every((request) => request.headers['x-min-position'] === undefined)).toBe(true);

      const blind = new LedgerClient({ baseUrl: ledger.service.url, token: TOKEN, readYourWrites: false, fetch: recording.fetch });
      await blind.resolveSession({ source: source() });
      await blind.listSessions({ limit: 1 });
      expect(recording.requests.at(-1)!.headers['x-min-position']).toBeUndefined();
    });

    it('throws typed errors carrying the code, status and request id', async () => {
      const client = new LedgerClient({ baseUrl: ledger.service.url, token: TOKEN });
      const missing = await client.getSession('20260101_000000_deadbeef').catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(LedgerApiError);
      expect(missing).toMatchObject({ status: 404, code: 'SESSION_NOT_FOUND', operation: 'getSession' });
      expect((missing as LedgerApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);

      const anonymous = await new LedgerClient({ baseUrl: ledger.service.url }).listSessions().catch((error: unknown) => error);
      expect(anonymous).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      const invalid = await client.resolveSession({ source: { platform: 'NOT VALID', chatType: 'dm' } }).catch((error: unknown) => error);
      expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      await expect(client.listSessions({ limit: 1, ...({ bogus: 1 } as object) })).rejects.toThrow(/takes no query parameter bogus/);
    });

    it('sends a fresh Idempotency-Key with every write and the same one on its retries: a lost answer is retried, the write happens once', async () => {
      const keys: string[] = [];
      let loseNext = false;
      // The service gets the request and answers; the answer is lost on the way back, as when a connection breaks.
      const losing: typeof fetch = async (input, init) => {
        const key = (init?.headers as Record<string, string>)['idempotency-key'];
        if (key) keys.push(key);
        const response = await fetch(input, init);
        if (!loseNext) return response;
        loseNext = false;
        await response.arrayBuffer();
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      };
      const client = new LedgerClient({ baseUrl: ledger.service.url, token: TOKEN, fetch: losing, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
      const { sessionId } = await client.resolveSession({ source: source() });
      loseNext = true;
      const turn = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'said once' }] });
      expect(turn.turnIndex).toBe(1);
      const transcript = await client.getTranscript(sessionId);
      expect(transcript.messages.filter((message) => message.content === 'said once')).toHaveLength(1);
      // resolve, then the turn twice (lost, retried): two keys, the retry's the same as the lost one.
      expect(keys).toHaveLength(3);
      expect(keys[2]).toBe(keys[1]);
      expect(keys[1]).not.toBe(keys[0]);

      // Without keys a lost answer of a write that is not safe to repeat is the caller's to check.
      const unkeyed = new LedgerClient({
        baseUrl: ledger.service.url,
        token: TOKEN,
        fetch: losing,
        idempotencyKeys: false,
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
      });
      loseNext = true;
      const lost = await unkeyed.recordTurn(sessionId, { messages: [{ role: 'user', content: 'maybe' }] }).catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(LedgerNetworkError);
      expect(lost).toMatchObject({ maybeApplied: true, idempotencyKey: undefined });
    });

    it('does not retry the 409s that are decisions: ALREADY_FIRED, TURN_IN_FLIGHT', async () => {
      const recording = recordingFetch();
      const client = new LedgerClient({ baseUrl: ledger.service.url, token: TOKEN, fetch: recording.fetch });
      const job = await client.createJob({ skill: 'client-test', schedule: '* * * * *' });
      const fired = await client.fireJob(job.id);
      const before = recording.requests.length;
      const again = await client.fireJob(job.id, { slot: fired.slot }).catch((error: unknown) => error);
      expect(again).toMatchObject({ status: 409, code: 'ALREADY_FIRED' });
      expect(recording.requests.length - before).toBe(1);

      const { sessionId } = await client.resolveSession({ source: source() });
      const turn = await client.recordTurn(sessionId, { messages: [{ role: 'user', content: 'one' }] });
      await client.startTurn(sessionId);
      const beforeRollback = recording.requests.length;
      const refused = await client.rollback(sessionId, turn.checkpointId!).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 409, code: 'TURN_IN_FLIGHT' });
      expect(recording.requests.length - beforeRollback).toBe(1);
    });

    it('streams lifecycle events of one conversation and job fires, as typed objects', async () => {
      const client = new LedgerClient({ baseUrl: ledger.service.url, token: TOKEN });
      const from = await ledger.service.lastPosition();
      const resolved = await client.resolveSession({ source: source() });
      await client.suspendConversation(resolved.sessionKey, { reason: 'stop' });
      const events: LifecycleEvent[] = await take(
        client.events({ sessionKey: resolved.sessionKey, types: ['SessionBound', 'Suspended'], fromPosition: from }),
        2,
      );
      expect(events.map((event) => [event.type, event.streamName])).toEqual([
        ['SessionBound', `conversation-${resolved.sessionKey}`],
        ['Suspended', `conversation-${resolved.sessionKey}`],
      ]);

      const job = await client.createJob({ skill: 'streamed', schedule: '* * * * *' });
      const fired = await client.fireJob(job.id);
      const fires = await take(client.jobFires({ from: fired.position - 1 }), 1);
      expect(fires[0]).toMatchObject({ name: 'job.fired', position: fired.position, data: { jobId: job.id, fireId: fired.fireId } });
    });
  },
  { env: { API_TOKEN: TOKEN, JOB_TICK_INTERVAL_MS: '0' } },
);

describe('typed client retries', () => {
  let stub: Server;
  let port: number;
  const answers: Array<{ status: number; body: object }> = [];
  let served = 0;

  beforeAll(async () => {
    // A real HTTP server answering what the service answers rarely: a compare-and-set lost even after its own retries.
    stub = createServer((request, response) => {
      served += 1;
      const answer = answers.shift() ?? { status: 500, body: { error: { code: 'NO_MORE_ANSWERS', message: 'test ran out' } } };
      response.writeHead(answer.status, { 'content-type': 'application/json', 'x-request-id': `stub-${served}` });
      response.end(JSON.stringify(answer.body));
      request.resume();
    });
    port = await freePort();
    await new Promise<void>((resolve) => stub.listen(port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => stub.close(resolve));
  });

  const conflict = { status: 409, body: { error: { code: 'WRONG_EXPECTED_REVISION', message: 'lost the race', requestId: 'r-409' } } };
  const turned = { status: 201, body: { turnIndex: 1, revision: 1, position: 42, counters: {}, checkpointId: 'cp-1' } };

  it('retries a lost compare-and-set, even for an operation that is not safe to repeat (nothing was written)', async () => {
    answers.push(conflict, conflict, turned);
    served = 0;
    const retries: number[] = [];
    const client = new LedgerClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      onRetry: (_, attempt) => retries.push(attempt),
    });
    const turn = await client.recordTurn('20260101_000000_aaaaaaaa', { messages: [{ role: 'user', content: 'x' }] });
    expect(turn.position).toBe(42);
    expect([served, retries]).toEqual([3, [1, 2]]);
    expect(client.position).toBe(42);
  });

  it('retries IDEMPOTENCY_KEY_IN_USE (an earlier try of the same call still runs) with the same key', async () => {
    const seenKeys: Array<string | undefined> = [];
    const inUse = { status: 409, body: { error: { code: 'IDEMPOTENCY_KEY_IN_USE', message: 'still running' } } };
    answers.push(inUse, turned);
    served = 0;
    const client = new LedgerClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      fetch: (input, init) => {
        seenKeys.push((init?.headers as Record<string, string>)['idempotency-key']);
        return fetch(input, init);
      },
    });
    expect((await client.recordTurn('20260101_000000_aaaaaaaa', { messages: [{ role: 'user', content: 'x' }] })).position).toBe(42);
    expect(served).toBe(2);
    expect(seenKeys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seenKeys[1]).toBe(seenKeys[0]);
    // A key the caller passes (an earlier call's, whose answer never came) is sent as it is.
    answers.push(turned);
    await client.recordTurn('20260101_000000_aaaaaaaa', { messages: [] }, { idempotencyKey: 'resent-key-1' });
    expect(seenKeys[2]).toBe('resent-key-1');
  });

  it('gives up after maxAttempts with the last error, and never retries a business 409', async () => {
    answers.push(conflict, conflict, conflict);
    served = 0;
    const client = new LedgerClient({ baseUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    await expect(client.recordTurn('20260101_000000_aaaaaaaa', { messages: [] })).rejects.toMatchObject({
      code: 'WRONG_EXPECTED_REVISION',
      requestId: 'r-409',
    });
    expect(served).toBe(3);

    answers.push({ status: 409, body: { error: { code: 'RUNTIME_BUSY', message: 'a turn runs' } } });
    served = 0;
    await expect(client.recordTurn('20260101_000000_aaaaaaaa', { messages: [] })).rejects.toMatchObject({ code: 'RUNTIME_BUSY' });
    expect(served).toBe(1);
  });

  it('retries a refused connection (the request never left) and says when an answer was lost', async () => {
    const closedPort = await freePort();
    const client = new LedgerClient({ baseUrl: `http://127.0.0.1:${closedPort}`, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const refused = await client.recordTurn('20260101_000000_aaaaaaaa', { messages: [] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LedgerNetworkError);
    expect(refused).toMatchObject({ operation: 'recordTurn', maybeApplied: false });
  });
});
