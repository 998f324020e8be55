// The service shell over real HTTP: health, readiness, errors, auth, OpenAPI, projections admin, read-your-writes.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

forEachBackend(
  'service shell',
  (ledger) => {
    it('answers liveness and readiness', async () => {
      expect(await ledger.client.health()).toEqual({ status: 'ok' });
      const ready = await ledger.service.request('GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.eventStore.ok).toBe(true);
      expect(ready.body.checks.readModels.ok).toBe(true);
      expect(ready.body.checks.projections.states.map((state: { name: string }) => state.name)).toContain('stream-index');
    });

    it('answers malformed JSON with 400 MALFORMED_JSON and a request id', async () => {
      const response = await ledger.service.request('POST', '/v1/admin/projections/stream-index/rebuild', {
        rawBody: '{"oops":',
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'MALFORMED_JSON', requestId: 'req-42' });
      expect(response.headers.get('x-request-id')).toBe('req-42');
    });

    it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await ledger.service.request('POST', '/v1/admin/projections/stream-index/rebuild', { body: { padding: 'x'.repeat(5_000) } });
      expect(response.status).toBe(413);
      expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('answers unknown routes with 404 ROUTE_NOT_FOUND and bad query values with 400', async () => {
      expect((await ledger.service.request('GET', '/v1/nothing-here')).body.error.code).toBe('ROUTE_NOT_FOUND');
      const badLimit = await ledger.service.request('GET', '/v1/admin/streams?limit=abc');
      expect(badLimit.status).toBe(400);
      expect(badLimit.body.error.code).toBe('VALIDATION_FAILED');
      const unknownField = await ledger.service.request('GET', '/v1/admin/streams?surprise=1');
      expect(unknownField.status).toBe(400);
      const badPosition = await ledger.service.request('GET', '/v1/admin/streams?minPosition=-3');
      expect(badPosition.body.error.code).toBe('INVALID_MIN_POSITION');
    });

    it('answers what the HTTP parser refuses in the same error shape: headers too large, a malformed request line', async () => {
      const huge = await ledger.service.request('GET', `/v1/sessions?platform=${'x'.repeat(20_000)}`);
      expect(huge.status).toBe(431);
      expect(huge.body.error.code).toBe('HEADERS_TOO_LARGE');
      const { hostname, port } = new URL(ledger.service.url);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', reject);
      });
      expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).error.code).toBe('MALFORMED_REQUEST');
      expect((await ledger.service.request('GET', '/health')).status).toBe(200);
    });

    it('serves the OpenAPI document and the docs page', async () => {
      const openapi = await ledger.service.request('GET', '/openapi.json');
      expect(openapi.status).toBe(200);
      expect(Object.keys(openapi.body.paths)).toEqual(
        expect.arrayContaining(['/health', '/ready', '/v1/admin/projections', '/v1/admin/projections/{name}/rebuild']),
      );
      const docs = await ledger.service.request('GET', '/docs');
      expect(docs.status).toBe(200);
      expect(docs.text).toContain('swagger');
    });

    it('waits for the read model to reach a written position, or answers 503 PROJECTION_NOT_CAUGHT_UP', async () => {
      const { position } = await ledger.service.infrastructure.eventStore.append('conversation-rw1', [{ type: 'Opened', data: {} }], 'no_stream');
      const fresh = await ledger.service.request('GET', `/v1/admin/streams?category=conversation&minPosition=${position}`);
      expect(fresh.status).toBe(200);
      expect(fresh.body.streams.map((row: { streamName: string }) => row.streamName)).toContain('conversation-rw1');
      const viaHeader = await ledger.service.request('GET', '/v1/admin/streams?category=conversation', { headers: { 'X-Min-Position': String(position) } });
      expect(viaHeader.status).toBe(200);
      const future = await ledger.service.request('GET', `/v1/admin/streams?minPosition=${position * 2}`);
      expect(future.status).toBe(503);
      expect(future.body.error.code).toBe('PROJECTION_NOT_CAUGHT_UP');
    });

    it('lists projections with position and lag, and rebuilds one to the same rows', async () => {
      let last = 0;
      for (let index = 0; index < 30; index++) {
        last = (await ledger.service.infrastructure.eventStore.append(`session-rb${index % 4}`, [{ type: 'Turn', data: { index } }], 'any')).position;
      }
      // The head a reader sees may trail the last append while any transaction is open: wait on the append's own position.
      const readAfterRebuild = async () => {
        for (let attempt = 0; attempt < 100; attempt++) {
          const response = await ledger.service.request('GET', `/v1/admin/streams?limit=1000&minPosition=${last}`);
          if (response.status === 200) return response;
        }
        throw new Error('the stream index did not reach the last append');
      };
      const before = await readAfterRebuild();
      const listed = await ledger.client.listProjections();
      const streamIndex = listed.projections.find((projection) => projection.name === 'stream-index');
      expect(streamIndex).toMatchObject({ position: last, lagEvents: 0 });
      expect(streamIndex!.headPosition).toBeLessThanOrEqual(last);
      const rebuild = await ledger.service.request('POST', '/v1/admin/projections/stream-index/rebuild');
      expect(rebuild.status).toBe(202);
      expect(rebuild.body.position).toBe(0);
      const after = await readAfterRebuild();
      expect(after.body).toEqual(before.body);
      expect((await refusalOf(ledger.client.rebuildProjection('nope'))).code).toBe('PROJECTION_NOT_FOUND');
    });
  },
  { env: { BODY_LIMIT: '2kb', READ_WAIT_TIMEOUT_MS: '300' } },
);

// A service of its own, started with a token, on PGlite only.
describe('bearer token auth', () => {
  let service: TestApp;
  const token = 'a-long-enough-test-token';

  beforeAll(async () => {
    service = await startTestApp('pglite', { env: { API_TOKEN: token } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('keeps /health and /ready open and guards everything else', async () => {
    expect((await service.request('GET', '/health')).status).toBe(200);
    expect((await service.request('GET', '/ready')).status).toBe(200);
    const missing = await service.request('GET', '/v1/admin/projections');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('UNAUTHORIZED');
    expect((await service.request('GET', '/v1/admin/projections', { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status).toBe(401);
    expect((await service.request('GET', '/v1/admin/projections', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
