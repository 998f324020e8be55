// Property-based fuzzing of every route in /openapi.json: malformed, oversized, deeply nested, wrong-typed, unicode-edge and
// injection-shaped requests never get a 5xx, a refused request never changes the log, and the service stays up.
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { deeplyNested, encodeSegment, hostileJson, hostileString, sendRaw } from '../support/hostileInput.js';
import { forEachBackend } from '../support/forEachBackend.js';

// `npm run torture` raises it; CI keeps the file well under a minute.
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** MAX_TURN_TOKENS at its default; MAX_SESSION_TOKENS low enough that a few turns at the bound fill a session. */
const TURN_TOKENS = 1_000_000_000;
const SESSION_TOKENS = 10_000_000_000;

interface Route {
  method: string;
  /** Segments of the path template; `{name}` marks a parameter. */
  template: string;
  queryNames: string[];
  bodyProperties: string[];
  streams: boolean;
}

interface FuzzRequest {
  route: Route;
  pathValues: Array<{ value: string; style: 'encoded' | 'double' | 'raw' | 'badUtf8' }>;
  query: Array<[string, string]>;
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown }
    | { kind: 'shaped'; value: Record<string, unknown> }
    | { kind: 'validish'; value: unknown }
    | { kind: 'nested'; depth: number; shape: 'array' | 'object' }
    | { kind: 'huge'; bytes: number }
    | { kind: 'raw'; text: string; contentType: string }
    | { kind: 'badUtf8' };
  minPositionHeader: string | null;
}

/** Bodies the routes accept, with hostile leaves: these get past validation and reach the deciders and the database. */
const validBodies: Record<string, fc.Arbitrary<unknown>> = {
  'POST /v1/sessions/resolve': fc.record({
    source: fc.record({
      platform: fc.constantFrom('cli', 'telegram', 'whatsapp'),
      chatType: fc.constantFrom('dm', 'group', 'thread'),
      chatId: hostileString,
      userId: hostileString,
      userName: hostileString,
      chatTopic: hostileString,
    }),
  }),
  'POST /v1/sessions/{id}/turns': fc.record({
    messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: hostileJson }), { maxLength: 4 }),
  }),
  'PUT /v1/sessions/{id}/transcript': fc.record({ messages: fc.array(fc.record({ role: fc.constant('system'), content: hostileJson }), { maxLength: 3 }) }),
  'PUT /v1/sessions/{id}/memory/{name}': fc.record({ value: hostileJson, metadata: fc.dictionary(hostileString, hostileJson, { maxKeys: 3 }) }),
  'POST /v1/conversations/{key}/queue': fc.record({
    message: fc.record({ text: hostileString, metadata: fc.dictionary(hostileString, hostileJson, { maxKeys: 3 }) }),
    mode: fc.constantFrom('queue', 'interrupt'),
  }),
  'POST /v1/conversations/{key}/suspend': fc.record({ reason: hostileString }),
  'POST /v1/sessions/{id}/checkpoints': fc.record({ label: hostileString }),
  'POST /v1/sessions/{id}/children': fc.record({
    agentName: fc.constantFrom('a', 'worker'),
    metadata: fc.dictionary(hostileString, hostileJson, { maxKeys: 3 }),
  }),
  'POST /v1/jobs': fc.record({
    name: hostileString,
    prompt: hostileString,
    schedule: fc.oneof(fc.constantFrom('0 9 * * *', 'every 2h', '2026-07-01T09:00:00Z'), hostileString),
    timeZone: fc.oneof(fc.constant('UTC'), hostileString),
  }),
  'PATCH /v1/jobs/{id}': fc.record({ name: hostileString, prompt: hostileString }),
  'POST /v1/runtime-sessions/{id}/questions/{questionId}': fc.record({ answer: hostileString }),
};

function routesOf(document: {
  paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; requestBody?: any; summary?: string }>>;
}): Route[] {
  const routes: Route[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const properties = operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      routes.push({
        method: method.toUpperCase(),
        template,
        queryNames: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        bodyProperties: Object.keys(properties),
        streams: /\/stream$/.test(template),
      });
    }
  }
  return routes;
}

forEachBackend(
  'hostile input',
  (ledger) => {
    let routes: Route[];
    /** Real ids, so that some fuzzed requests reach the handlers behind the lookups. */
    const known: string[] = [];
    const ids = { sessionId: '', sessionKey: '', checkpointId: '', jobId: '' };
    /** The real id a path parameter of this route names. */
    const knownFor = (template: string, parameter: string): string => {
      if (parameter === 'key') return ids.sessionKey;
      if (parameter === 'id') return template.startsWith('/v1/jobs') ? ids.jobId : ids.sessionId;
      if (parameter === 'name') return template.includes('projections') ? 'sessions-index' : 'main';
      return known[0]!;
    };

    beforeAll(async () => {
      routes = routesOf((await ledger.service.request('GET', '/openapi.json')).body);
      const resolved = await ledger.service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'telegram', chatType: 'group', chatId: 'a:b/c', userId: 'u:1/2' } },
      });
      const { sessionId, sessionKey } = resolved.body;
      await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'seed' }] } });
      const checkpoint = await ledger.service.request('POST', `/v1/sessions/${sessionId}/checkpoints`, { body: {} });
      const job = await ledger.service.request('POST', '/v1/jobs', { body: { prompt: 'seed', schedule: '0 9 * * *' } });
      Object.assign(ids, { sessionId, sessionKey, checkpointId: checkpoint.body.checkpointId, jobId: job.body.id });
      known.push(sessionId, sessionKey, checkpoint.body.checkpointId, job.body.id, 'sessions-index', 'main', 'gw-1');
    });

    const requestArbitrary = (): fc.Arbitrary<FuzzRequest> =>
      fc.constantFrom(...routes).chain((route) => {
        const parameters = (route.template.match(/\{[^}]+\}/g) ?? []).map((parameter) => parameter.slice(1, -1));
        const pathValue = (name: string) =>
          fc.record({
            value: fc.oneof(
              { weight: 6, arbitrary: fc.constant(knownFor(route.template, name)) },
              { weight: 1, arbitrary: fc.constantFrom(...known) },
              { weight: 3, arbitrary: hostileString },
            ),
            style: fc.constantFrom('encoded', 'encoded', 'encoded', 'encoded', 'double', 'raw', 'badUtf8') as fc.Arbitrary<
              'encoded' | 'double' | 'raw' | 'badUtf8'
            >,
          });
        const queryName = fc.oneof(fc.constantFrom(...route.queryNames, 'minPosition', '__proto__', 'limit'), hostileString);
        const shaped = fc.dictionary(
          fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...route.bodyProperties, '__proto__', 'constructor') }, { weight: 1, arbitrary: hostileString }),
          hostileJson,
          { maxKeys: 6 },
        );
        const validish = validBodies[`${route.method} ${route.template}`];
        return fc.record({
          route: fc.constant(route),
          pathValues: fc.tuple(...parameters.map(pathValue)) as fc.Arbitrary<FuzzRequest['pathValues']>,
          query: fc.oneof(
            { weight: 3, arbitrary: fc.constant<Array<[string, string]>>([]) },
            { weight: 2, arbitrary: fc.array(fc.tuple(queryName, hostileString), { minLength: 1, maxLength: 4 }) },
          ),
          body: fc.oneof(
            { weight: validish ? 12 : 0, arbitrary: (validish ?? fc.constant(null)).map((value) => ({ kind: 'validish' as const, value })) },
            { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
            { weight: 3, arbitrary: hostileJson.map((value) => ({ kind: 'json' as const, value })) },
            { weight: 4, arbitrary: shaped.map((value) => ({ kind: 'shaped' as const, value })) },
            {
              weight: 1,
              arbitrary: fc.record({
                kind: fc.constant('nested' as const),
                depth: fc.integer({ min: 50, max: 20_000 }),
                shape: fc.constantFrom('array' as const, 'object' as const),
              }),
            },
            { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge' as const), bytes: fc.integer({ min: 100_000, max: 600_000 }) }) },
            {
              weight: 1,
              arbitrary: fc.record({
                kind: fc.constant('raw' as const),
                text: fc.oneof(hostileString, fc.constantFrom('{', '{"a":', '[1,]', '{"a":1}{"b":2}', 'null', '"x"', '1e999', '{"a":NaN}')),
                contentType: fc.constantFrom(
                  'application/json',
                  'application/json; charset=latin1',
                  'text/plain',
                  'application/x-www-form-urlencoded',
                  'application/json; charset=utf-16',
                ),
              }),
            },
            { weight: 1, arbitrary: fc.constant({ kind: 'badUtf8' as const }) },
          ),
          minPositionHeader: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hostileString }),
        });
      });

    async function send(request: FuzzRequest): Promise<{ status: number; body: any; text: string }> {
      let index = 0;
      const path = request.route.template.replace(/\{[^}]+\}/g, () => {
        const { value, style } = request.pathValues[index++]!;
        return encodeSegment(value, style);
      });
      const search = new URLSearchParams(request.query).toString();
      const headers: Record<string, string> = {};
      // A header carries visible ASCII only (the HTTP client refuses the rest before anything is sent).
      if (request.minPositionHeader !== null) headers['x-min-position'] = request.minPositionHeader.replace(/[^\x20-\x7e]/g, '?');
      let body: string | Uint8Array | undefined;
      switch (request.body.kind) {
        case 'none':
          break;
        case 'json':
        case 'shaped':
        case 'validish':
          body = JSON.stringify(request.body.value) ?? 'null';
          headers['content-type'] = 'application/json';
          break;
        case 'nested':
          body = deeplyNested(request.body.depth, request.body.shape);
          headers['content-type'] = 'application/json';
          break;
        case 'huge':
          body = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(request.body.bytes) }], text: 'y'.repeat(request.body.bytes) });
          headers['content-type'] = 'application/json';
          break;
        case 'raw':
          body = request.body.text;
          headers['content-type'] = request.body.contentType;
          break;
        case 'badUtf8':
          body = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0xc0, 0xaf, 0x22, 0x7d]);
          headers['content-type'] = 'application/json';
          break;
      }
      return new Promise((resolve, reject) => {
        // node:http rather than fetch: a hostile client sends bodies with GET and paths no URL parser would normalise.
        const outgoing = httpRequest(
          `${ledger.service.url}${path}${search ? `?${search}` : ''}`,
          {
            method: request.route.method,
            headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            timeout: 15_000,
          },
          (response) => {
            // Event streams stay open by design: the status line is the answer.
            if ((response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
              response.destroy();
              resolve({ status: response.statusCode!, body: undefined, text: '' });
              return;
            }
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown;
              try {
                parsed = text ? JSON.parse(text) : undefined;
              } catch {
                parsed = undefined;
              }
              resolve({ status: response.statusCode!, body: parsed, text });
            });
            response.on('error', reject);
          },
        );
        outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 15 s')));
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    }

    it(`answers ${RUNS} hostile requests to every route without a 5xx, and refusals change nothing`, { timeout: 600_000 }, async () => {
      const statuses = new Map<number, number>();
      const hitRoutes = new Set<string>();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(), async (request) => {
          const before = await ledger.service.lastPosition();
          const response = await send(request);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          hitRoutes.add(`${request.route.method} ${request.route.template}`);
          const where = `${request.route.method} ${request.route.template} → ${response.status} ${response.text.slice(0, 300)}`;
          // A read that waits for a position the log has not reached is the one documented 503.
          const documented503 = response.status === 503 && response.body?.error?.code === 'PROJECTION_NOT_CAUGHT_UP';
          expect(response.status < 500 || documented503, where).toBe(true);
          if (response.status >= 400) {
            expect(String(response.body?.error?.code), where).toMatch(/^[A-Z][A-Z0-9_]+$/);
            expect(await ledger.service.lastPosition(), `a refused request wrote: ${where}`).toBe(before);
          }
          // Nothing a request sent leaked into every object of the process.
          expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(hitRoutes.size).toBe(routes.length);
      expect((await ledger.service.request('GET', '/health')).status).toBe(200);
      const still = await ledger.service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'cli', chatType: 'dm', chatId: 'after-the-storm' } },
      });
      expect(still.status).toBe(201);
      console.info(
        `hostile input (${ledger.backend}): ${RUNS} requests over ${hitRoutes.size} routes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
      );
    });

    /** A fresh conversation and its session, so that each case below starts from a state it knows. */
    async function freshSession(chatId: string): Promise<{ sessionId: string; key: string; position: number }> {
      const resolved = await ledger.service.request('POST', '/v1/sessions/resolve', { body: { source: { platform: 'cli', chatType: 'dm', chatId } } });
      expect(resolved.status).toBe(201);
      return { sessionId: resolved.body.sessionId, key: encodeURIComponent(resolved.body.sessionKey), position: resolved.body.position };
    }

    it('answers a write whose body is not JSON with 415 UNSUPPORTED_MEDIA_TYPE, before any validation', async () => {
      const { sessionId, key } = await freshSession('media-type');
      const before = await ledger.service.lastPosition();
      const turn = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
      const cases = [
        await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}/turns`, 'POST', { body: turn, headers: { 'content-type': 'text/plain' } }),
        await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}/turns`, 'POST', { body: turn }),
        await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}/memory/m`, 'PUT', {
          body: '{"value":1}',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        await sendRaw(`${ledger.service.url}/v1/conversations/${key}/queue`, 'POST', {
          body: '{"message":{"text":"x"}}',
          headers: { 'content-type': 'application/jsonx' },
        }),
      ];
      expect(cases.map((answer) => [answer.status, answer.body?.error?.code])).toEqual(Array(4).fill([415, 'UNSUPPORTED_MEDIA_TYPE']));
      expect(cases[1]!.body.error.message).toMatch(/no Content-Type was given/);
      expect(await ledger.service.lastPosition()).toBe(before);
      // JSON with its media-type parameters is JSON; no body at all needs no content type.
      const json = await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}/turns`, 'POST', {
        body: turn,
        headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      });
      expect(json.status).toBe(201);
      const bodiless = await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}/checkpoints`, 'POST');
      expect(bodiless.status).toBe(201);
    });

    it('answers a known path asked with the wrong method with 405 and an Allow header, an unknown path with 404', async () => {
      const { sessionId } = await freshSession('method');
      const wrong = await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}/turns`, 'GET');
      expect([wrong.status, wrong.body.error.code, wrong.headers.allow]).toEqual([405, 'METHOD_NOT_ALLOWED', 'POST']);
      const patch = await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}`, 'PATCH', { body: '{}', headers: { 'content-type': 'application/json' } });
      expect(patch.status).toBe(405);
      expect(String(patch.headers.allow).split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD']);
      const options = await sendRaw(`${ledger.service.url}/v1/jobs`, 'OPTIONS');
      expect([options.status, String(options.headers.allow).split(', ').sort()]).toEqual([204, ['GET', 'HEAD', 'POST']]);
      const unknown = await sendRaw(`${ledger.service.url}/v1/sessions/${sessionId}/turns/nope`, 'GET');
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    });

    it('refuses a completed turn with no messages, and takes a failed one', async () => {
      const { sessionId } = await freshSession('empty-turn');
      const before = await ledger.service.lastPosition();
      const empty = await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [] } });
      expect([empty.status, empty.body.error.code, empty.body.error.details[0].path]).toEqual([400, 'VALIDATION_FAILED', 'messages']);
      expect(await ledger.service.lastPosition()).toBe(before);
      expect((await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [], status: 'failed' } })).status).toBe(201);
      expect((await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [], status: 'interrupted' } })).status).toBe(201);
    });

    it('checks the request before the state: a malformed body on an ended session or a removed job answers the validation error', async () => {
      const { sessionId, key } = await freshSession('validation-first');
      expect((await ledger.service.request('POST', `/v1/conversations/${key}/reset`, { body: {} })).status).toBe(200);
      const ended = await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'x' }] } });
      expect(ended.body.error.code).toBe('SESSION_ENDED');
      for (const body of [{ messages: 'nope' }, { messages: [] }, { messages: [{ role: 'user', content: 'x' }], surprise: 1 }]) {
        const answer = await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body });
        expect([answer.status, answer.body.error.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_FAILED']);
      }
      const job = await ledger.service.request('POST', '/v1/jobs', { body: { id: 'validation-first', prompt: 'p', schedule: '0 9 * * *' } });
      expect(job.status).toBe(201);
      const again = await ledger.service.request('POST', '/v1/jobs', { body: { id: 'validation-first', schedule: '0 9 * * *' } });
      expect([again.status, again.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect((await ledger.service.request('DELETE', '/v1/jobs/validation-first')).status).toBe(200);
      const patched = await ledger.service.request('PATCH', '/v1/jobs/validation-first', { body: { schedule: 'whenever' } });
      expect([patched.status, patched.body.error.code]).toEqual([400, 'INVALID_SCHEDULE']);
      const zone = await ledger.service.request('PATCH', '/v1/jobs/validation-first', { body: { timeZone: 'Mars/Olympus_Mons' } });
      expect([zone.status, zone.body.error.code]).toEqual([400, 'INVALID_TIME_ZONE']);
    });

    it('refuses JSON nested 5,000 levels deep in every free-form field with 400 JSON_TOO_DEEP, not a 500', async () => {
      const { sessionId, key } = await freshSession('deep');
      const before = await ledger.service.lastPosition();
      const deep = deeplyNested(5_000, 'object');
      const bodies: Array<[string, string, string]> = [
        ['POST', `/v1/sessions/${sessionId}/turns`, `{"messages":[{"role":"user","content":${deep}}]}`],
        ['POST', `/v1/sessions/${sessionId}/turns`, `{"messages":[{"role":"user","content":"x","metadata":{"m":${deep}}}]}`],
        ['PUT', `/v1/sessions/${sessionId}/transcript`, `{"messages":[{"role":"user","content":${deeplyNested(5_000, 'array')}}]}`],
        ['PUT', `/v1/sessions/${sessionId}/memory/m`, `{"value":${deep}}`],
        ['PUT', `/v1/sessions/${sessionId}/memory/m`, `{"value":1,"metadata":{"m":${deep}}}`],
        ['POST', `/v1/conversations/${key}/queue`, `{"message":{"text":"x","media":[${deep}]}}`],
        ['POST', `/v1/conversations/${key}/queue`, `{"message":{"text":"x","metadata":{"m":${deep}}}}`],
        ['POST', `/v1/sessions/${sessionId}/children`, `{"agentName":"a","metadata":{"m":${deep}}}`],
      ];
      for (const [method, path, body] of bodies) {
        const answer = await sendRaw(`${ledger.service.url}${path}`, method, { body, headers: { 'content-type': 'application/json' } });
        expect([answer.status, answer.body?.error?.code, answer.body?.error?.details?.limit], `${method} ${path}`).toEqual([400, 'JSON_TOO_DEEP', 64]);
        expect(answer.body.error.message).toMatch(/JSON_MAX_DEPTH \(64\)/);
      }
      expect(await ledger.service.lastPosition()).toBe(before);
      // The limit counts the body's own levels: {"value": …} leaves 63 for the value.
      const atLimit = await ledger.service.request('PUT', `/v1/sessions/${sessionId}/memory/m`, {
        rawBody: `{"value":${deeplyNested(63, 'array')}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(atLimit.status).toBe(200);
      const past = await ledger.service.request('PUT', `/v1/sessions/${sessionId}/memory/m`, {
        rawBody: `{"value":${deeplyNested(64, 'array')}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect([past.status, past.body.error.code]).toEqual([400, 'JSON_TOO_DEEP']);
      const read = await ledger.service.request('GET', `/v1/sessions/${sessionId}/memory`);
      expect(JSON.stringify(read.body.entries[0].value)).toBe(deeplyNested(63, 'array'));
    });

    it('keeps __proto__ and constructor members as data, on the write answer and on every read back', async () => {
      const { sessionId } = await freshSession('proto');
      const value = '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"polluted":1}},"plain":1}';
      const written = await ledger.service.request('PUT', `/v1/sessions/${sessionId}/memory/m`, {
        rawBody: `{"value":${value},"metadata":{"__proto__":{"tag":"x"}}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(written.status).toBe(200);
      const keysOf = (object: object) => Object.keys(object).sort();
      expect(keysOf(written.body.value)).toEqual(['__proto__', 'constructor', 'plain']);
      expect(written.body.value['__proto__']).toEqual({ isAdmin: true });
      expect(keysOf(written.body.metadata)).toEqual(['__proto__']);
      const turn = await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, {
        rawBody: `{"messages":[{"role":"user","content":${value}}]}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(turn.status).toBe(201);
      // From the state held in memory, from a replay of the stored events, and from the transcript.
      const memory = await ledger.service.request('GET', `/v1/sessions/${sessionId}/memory`);
      const replayed = await ledger.service.request('GET', `/v1/sessions/${sessionId}/state?revision=${turn.body.revision}`);
      for (const entry of [memory.body.entries[0], replayed.body.state.memory[0]]) {
        expect(keysOf(entry.value)).toEqual(['__proto__', 'constructor', 'plain']);
        expect(entry.value['__proto__']).toEqual({ isAdmin: true });
        expect(entry.metadata['__proto__']).toEqual({ tag: 'x' });
      }
      const transcript = await ledger.service.request('GET', `/v1/sessions/${sessionId}/transcript`);
      expect(keysOf(transcript.body.messages.at(-1).content)).toEqual(['__proto__', 'constructor', 'plain']);
      expect(keysOf(replayed.body.state.transcript.at(-1).content)).toEqual(['__proto__', 'constructor', 'plain']);
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('bounds usage per field of a turn (400 TURN_USAGE_TOO_LARGE) and per session (409 SESSION_USAGE_FULL), writing nothing refused', async () => {
      const { sessionId } = await freshSession('usage-bounds');
      const turn = (usage: Record<string, number | null>) =>
        ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'x' }], usage } });
      const before = await ledger.service.lastPosition();
      for (const field of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'lastPromptTokens']) {
        for (const value of [TURN_TOKENS + 1, Number.MAX_SAFE_INTEGER]) {
          const refused = await turn({ [field]: value });
          expect([refused.status, refused.body.error.code, refused.body.error.details], field).toEqual([
            400,
            'TURN_USAGE_TOO_LARGE',
            { field, value, limit: TURN_TOKENS },
          ]);
        }
      }
      expect(await ledger.service.lastPosition()).toBe(before);
      const full = {
        inputTokens: TURN_TOKENS,
        outputTokens: TURN_TOKENS,
        cacheReadTokens: TURN_TOKENS,
        cacheWriteTokens: TURN_TOKENS,
        lastPromptTokens: TURN_TOKENS,
      };
      expect((await turn(full)).status).toBe(201);
      expect((await turn(full)).status).toBe(201);
      const atLimit = await turn({ inputTokens: TURN_TOKENS, outputTokens: SESSION_TOKENS - 9 * TURN_TOKENS });
      expect([atLimit.status, atLimit.body.counters?.totalTokens]).toEqual([201, SESSION_TOKENS]);
      const filled = await ledger.service.lastPosition();
      const past = await turn({ outputTokens: 1 });
      expect([past.status, past.body.error.code, past.body.error.details]).toEqual([
        409,
        'SESSION_USAGE_FULL',
        { sessionId, totalTokens: SESSION_TOKENS, adding: 1, limit: SESSION_TOKENS },
      ]);
      expect(await ledger.service.lastPosition()).toBe(filled);
      // A turn that adds no tokens still goes in: the bound is on usage, not on the conversation.
      expect((await turn({})).status).toBe(201);
    });

    it('applies every turn the API accepts to every projection: usage at and past its bounds, hostile content', { timeout: 300_000 }, async () => {
      const tokens = fc.oneof(fc.constantFrom(0, 1, TURN_TOKENS, TURN_TOKENS + 1, Number.MAX_SAFE_INTEGER), fc.integer({ min: 0, max: TURN_TOKENS }));
      const turnBody = fc.record({
        messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: hostileJson }), { minLength: 1, maxLength: 3 }),
        usage: fc.record(
          {
            inputTokens: tokens,
            outputTokens: tokens,
            cacheReadTokens: tokens,
            cacheWriteTokens: tokens,
            lastPromptTokens: fc.option(tokens),
            costUsd: fc.constantFrom(0, 0.000001, 1e9, 123.456789),
          },
          { requiredKeys: [] },
        ),
        status: fc.constantFrom('completed', 'failed', 'interrupted'),
      });
      let run = 0;
      let accepted = 0;
      let lastWrite = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(turnBody, { minLength: 1, maxLength: 5 }), async (turns) => {
          const { sessionId, position } = await freshSession(`usage-property-${run++}`);
          lastWrite = Math.max(lastWrite, position);
          for (const body of turns) {
            const answer = await ledger.service.request('POST', `/v1/sessions/${sessionId}/turns`, { body });
            const where = `${JSON.stringify(body.usage)} → ${answer.status} ${answer.text.slice(0, 200)}`;
            expect([201, 400, 409, 413], where).toContain(answer.status);
            if (answer.status === 201) {
              accepted += 1;
              lastWrite = answer.body.position;
              // Every counter the fold reaches stays a safe integer.
              for (const value of Object.values(answer.body.counters as Record<string, number>))
                expect(Number.isSafeInteger(Math.round(value)), where).toBe(true);
            }
          }
          // The index shows the counters the session folded (this app waits only 100 ms per read: ask again).
          let record = await ledger.service.request('GET', `/v1/sessions/${sessionId}/record?minPosition=${lastWrite}`);
          for (let attempt = 0; record.status === 503 && attempt < 100; attempt++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            record = await ledger.service.request('GET', `/v1/sessions/${sessionId}/record?minPosition=${lastWrite}`);
          }
          expect(record.status).toBe(200);
          expect(record.body).toMatchObject((await ledger.service.request('GET', `/v1/sessions/${sessionId}`)).body.counters);
        }),
        { numRuns: 25, seed: SEED, endOnFailure: true },
      );
      expect(accepted).toBeGreaterThan(10);
      // Every projection reaches the last accepted write, and none met an event it could not apply.
      let projections: Array<{ name: string; position: number; state: string; lastError: string | null }> = [];
      for (let attempt = 0; attempt < 100; attempt++) {
        projections = (await ledger.service.request('GET', '/v1/admin/projections')).body.projections;
        if (projections.every((projection) => projection.position >= lastWrite)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const projection of projections) {
        expect([projection.name, projection.position >= lastWrite, projection.state === 'failed', projection.lastError]).toEqual([
          projection.name,
          true,
          false,
          null,
        ]);
      }
      expect((await ledger.service.request('GET', '/ready')).status).toBe(200);
    });

    it(
      'parks a stream the sessions index cannot apply: its reads answer 503 PROJECTION_STREAM_PARKED, every other read goes on',
      { timeout: 120_000 },
      async () => {
        const poisoned = await freshSession('parked');
        const bystander = await freshSession('bystander');
        // An event no API request can write any more (a turn without usage), as an older log may hold.
        await ledger.service.infrastructure.eventStore.append(
          sessionStreamName(poisoned.sessionId),
          [{ type: 'TurnRecorded', data: { turnIndex: 1, status: 'completed', messages: [], at: new Date().toISOString() } }],
          'any',
        );
        const turn = await ledger.service.request('POST', `/v1/sessions/${bystander.sessionId}/turns`, {
          body: { messages: [{ role: 'user', content: 'still here' }] },
        });
        expect(turn.status).toBe(201);
        let record = await ledger.service.request('GET', `/v1/sessions/${bystander.sessionId}/record?minPosition=${turn.body.position}`);
        for (let attempt = 0; record.status === 503 && attempt < 300; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          record = await ledger.service.request('GET', `/v1/sessions/${bystander.sessionId}/record?minPosition=${turn.body.position}`);
        }
        expect([record.status, record.body.turnCount]).toEqual([200, 1]);
        for (const path of [`/v1/sessions/${poisoned.sessionId}/record`, `/v1/sessions/by-key/${poisoned.key}`]) {
          const parked = await ledger.service.request('GET', path);
          expect([parked.status, parked.body.error.code, parked.body.error.details.streams[0].streamName], path).toEqual([
            503,
            'PROJECTION_STREAM_PARKED',
            sessionStreamName(poisoned.sessionId),
          ]);
        }
        const { projections } = (await ledger.service.request('GET', '/v1/admin/projections')).body;
        const index = projections.find((projection: { name: string }) => projection.name === 'sessions-index');
        expect(index).toMatchObject({ lastError: null, parkedStreams: [{ streamName: sessionStreamName(poisoned.sessionId), skippedEvents: 1 }] });
        expect(index.state).not.toBe('failed');
        expect((await ledger.service.request('GET', '/ready')).status).toBe(200);
      },
    );

    it('refuses dates that are not on the calendar with 400 in every date input', async () => {
      const before = await ledger.service.lastPosition();
      for (const schedule of ['2027-13-01T10:00', '2027-02-30T10:00', '2027-02-29T10:00:00Z', '2027-04-31T08:00+02:00', '2027-01-01T24:00']) {
        const answer = await ledger.service.request('POST', '/v1/jobs', { body: { prompt: 'p', schedule } });
        expect([answer.status, answer.body.error.code], schedule).toEqual([400, 'INVALID_SCHEDULE']);
      }
      const job = await ledger.service.request('POST', '/v1/jobs', { body: { id: 'calendar', prompt: 'p', schedule: '0 9 * * *' } });
      expect(job.status).toBe(201);
      const afterJob = await ledger.service.lastPosition();
      const patched = await ledger.service.request('PATCH', '/v1/jobs/calendar', { body: { schedule: '2027-02-30T10:00' } });
      expect([patched.status, patched.body.error.code]).toEqual([400, 'INVALID_SCHEDULE']);
      const fired = await ledger.service.request('POST', '/v1/jobs/calendar/fire', { body: { slot: '2027-02-30T09:00:00Z' } });
      expect([fired.status, fired.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      const { sessionId } = await freshSession('calendar');
      const state = await ledger.service.request('GET', `/v1/sessions/${sessionId}/state?at=${encodeURIComponent('2027-02-30T10:00:00Z')}`);
      expect([state.status, state.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(afterJob).toBeGreaterThan(before);
      // A leap day that exists is taken.
      expect((await ledger.service.request('POST', '/v1/jobs', { body: { prompt: 'p', schedule: '2028-02-29T10:00:00Z' } })).status).toBe(201);
    });
  },
  {
    // Nothing writes on its own (no ticker, no watchdog): any move of the log comes from a request.
    env: {
      JOB_TICK_INTERVAL_MS: '0',
      RUNTIME_WATCHDOG_INTERVAL_MS: '0',
      READ_WAIT_TIMEOUT_MS: '100',
      BODY_LIMIT: '256kb',
      MAX_SESSION_TOKENS: String(SESSION_TOKENS),
      PROJECTION_PARK_AFTER_FAILURES: '2',
    },
  },
);
