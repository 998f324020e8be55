// Property-based fuzzing of every route in /openapi.json: malformed, oversized, deeply nested, wrong-typed, unicode-edge and
// injection-shaped requests never get a 5xx, a refused request never changes the log, and the service stays up.
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deeplyNested, encodeSegment, hostileJson, hostileString } from '../support/hostileInput.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

// `npm run torture` raises it; CI keeps the file well under a minute.
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

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
    source: fc.record({ platform: fc.constantFrom('cli', 'telegram', 'whatsapp'), chatType: fc.constantFrom('dm', 'group', 'thread'), chatId: hostileString, userId: hostileString, userName: hostileString, chatTopic: hostileString }),
  }),
  'POST /v1/sessions/{id}/turns': fc.record({ messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: hostileJson }), { maxLength: 4 }) }),
  'PUT /v1/sessions/{id}/transcript': fc.record({ messages: fc.array(fc.record({ role: fc.constant('system'), content: hostileJson }), { maxLength: 3 }) }),
  'PUT /v1/sessions/{id}/memory/{name}': fc.record({ value: hostileJson, metadata: fc.dictionary(hostileString, hostileJson, { maxKeys: 3 }) }),
  'POST /v1/conversations/{key}/queue': fc.record({ message: fc.record({ text: hostileString, metadata: fc.dictionary(hostileString, hostileJson, { maxKeys: 3 }) }), mode: fc.constantFrom('queue', 'interrupt') }),
  'POST /v1/conversations/{key}/suspend': fc.record({ reason: hostileString }),
  'POST /v1/sessions/{id}/checkpoints': fc.record({ label: hostileString }),
  'POST /v1/sessions/{id}/children': fc.record({ agentName: fc.constantFrom('a', 'worker'), metadata: fc.dictionary(hostileString, hostileJson, { maxKeys: 3 }) }),
  'POST /v1/jobs': fc.record({ name: hostileString, prompt: hostileString, schedule: fc.oneof(fc.constantFrom('0 9 * * *', 'every 2h', '2026-07-01T09:00:00Z'), hostileString), timeZone: fc.oneof(fc.constant('UTC'), hostileString) }),
  'PATCH /v1/jobs/{id}': fc.record({ name: hostileString, prompt: hostileString }),
  'POST /v1/runtime-sessions/{id}/questions/{questionId}': fc.record({ answer: hostileString }),
};

function routesOf(document: { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; requestBody?: any; summary?: string }>> }): Route[] {
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

for (const backend of e2eBackends()) {
  describe(`hostile input: ${backend}`, () => {
    let service: TestApp;
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
      // Nothing writes on its own (no ticker, no watchdog): any move of the log comes from a request.
      service = await startTestApp(backend, { env: { JOB_TICK_INTERVAL_MS: '0', RUNTIME_WATCHDOG_INTERVAL_MS: '0', READ_WAIT_TIMEOUT_MS: '100', BODY_LIMIT: '256kb' } });
      routes = routesOf((await service.request('GET', '/openapi.json')).body);
      const resolved = await service.request('POST', '/v1/sessions/resolve', { body: { source: { platform: 'telegram', chatType: 'group', chatId: 'a:b/c', userId: 'u:1/2' } } });
      const { sessionId, sessionKey } = resolved.body;
      await service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'seed' }] } });
      const checkpoint = await service.request('POST', `/v1/sessions/${sessionId}/checkpoints`, { body: {} });
      const job = await service.request('POST', '/v1/jobs', { body: { prompt: 'seed', schedule: '0 9 * * *' } });
      Object.assign(ids, { sessionId, sessionKey, checkpointId: checkpoint.body.checkpointId, jobId: job.body.id });
      known.push(sessionId, sessionKey, checkpoint.body.checkpointId, job.body.id, 'sessions-index', 'main', 'gw-1');
    });
    afterAll(async () => {
      await service?.close();
    });

    const requestArbitrary = (): fc.Arbitrary<FuzzRequest> =>
      fc.constantFrom(...routes).chain((route) => {
        const parameters = (route.template.match(/\{[^}]+\}/g) ?? []).map((parameter) => parameter.slice(1, -1));
        const pathValue = (name: string) =>
          fc.record({
            value: fc.oneof({ weight: 6, arbitrary: fc.constant(knownFor(route.template, name)) }, { weight: 1, arbitrary: fc.constantFrom(...known) }, { weight: 3, arbitrary: hostileString }),
            style: fc.constantFrom('encoded', 'encoded', 'encoded', 'encoded', 'double', 'raw', 'badUtf8') as fc.Arbitrary<'encoded' | 'double' | 'raw' | 'badUtf8'>,
          });
        const queryName = fc.oneof(fc.constantFrom(...route.queryNames, 'minPosition', '__proto__', 'limit'), hostileString);
        const shaped = fc.dictionary(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...route.bodyProperties, '__proto__', 'constructor') }, { weight: 1, arbitrary: hostileString }), hostileJson, { maxKeys: 6 });
        const validish = validBodies[`${route.method} ${route.template}`];
        return fc.record({
          route: fc.constant(route),
          pathValues: fc.tuple(...parameters.map(pathValue)) as fc.Arbitrary<FuzzRequest['pathValues']>,
          query: fc.oneof({ weight: 3, arbitrary: fc.constant<Array<[string, string]>>([]) }, { weight: 2, arbitrary: fc.array(fc.tuple(queryName, hostileString), { minLength: 1, maxLength: 4 }) }),
          body: fc.oneof(
            { weight: validish ? 12 : 0, arbitrary: (validish ?? fc.constant(null)).map((value) => ({ kind: 'validish' as const, value })) },
            { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
            { weight: 3, arbitrary: hostileJson.map((value) => ({ kind: 'json' as const, value })) },
            { weight: 4, arbitrary: shaped.map((value) => ({ kind: 'shaped' as const, value })) },
            { weight: 1, arbitrary: fc.record({ kind: fc.constant('nested' as const), depth: fc.integer({ min: 50, max: 20_000 }), shape: fc.constantFrom('array' as const, 'object' as const) }) },
            { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge' as const), bytes: fc.integer({ min: 100_000, max: 600_000 }) }) },
            {
              weight: 1,
              arbitrary: fc.record({
                kind: fc.constant('raw' as const),
                text: fc.oneof(hostileString, fc.constantFrom('{', '{"a":', '[1,]', '{"a":1}{"b":2}', 'null', '"x"', '1e999', '{"a":NaN}')),
                contentType: fc.constantFrom('application/json', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'),
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
          `${service.url}${path}${search ? `?${search}` : ''}`,
          { method: request.route.method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }, timeout: 15_000 },
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
          const before = await service.lastPosition();
          const response = await send(request);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          hitRoutes.add(`${request.route.method} ${request.route.template}`);
          const where = `${request.route.method} ${request.route.template} → ${response.status} ${response.text.slice(0, 300)}`;
          // A read that waits for a position the log has not reached is the one documented 503.
          const documented503 = response.status === 503 && response.body?.error?.code === 'PROJECTION_NOT_CAUGHT_UP';
          expect(response.status < 500 || documented503, where).toBe(true);
          if (response.status >= 400) {
            expect(String(response.body?.error?.code), where).toMatch(/^[A-Z][A-Z0-9_]+$/);
            expect(await service.lastPosition(), `a refused request wrote: ${where}`).toBe(before);
          }
          // Nothing a request sent leaked into every object of the process.
          expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(hitRoutes.size).toBe(routes.length);
      expect((await service.request('GET', '/health')).status).toBe(200);
      const still = await service.request('POST', '/v1/sessions/resolve', { body: { source: { platform: 'cli', chatType: 'dm', chatId: 'after-the-storm' } } });
      expect(still.status).toBe(201);
      console.info(`hostile input (${backend}): ${RUNS} requests over ${hitRoutes.size} routes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    });
  });
}
