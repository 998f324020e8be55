// Event streams are bounded per token and per instance (429 with Retry-After), share one tail reader, and a client
// too slow for the tail falls back to the log without a gap or a repeat.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { EVENT_STREAMS } from '../../src/http/serverSentEventStreams.js';
import { ServerSentEventStreams } from '../../src/http/serverSentEventStreams.js';
import { createLogger } from '../../src/logging/logger.js';
import { eventually } from '../support/eventually.js';
import { forEachBackend } from '../support/forEachBackend.js';

const ADMIN = 'ops-secret-0123456789abcdef';
const ACME = 'acme-secret-0123456789abcdef';
const GLOBEX = 'globex-secret-0123456789abcdef';
const API_TOKEN = `ops:admin=${ADMIN},acme:write:acme=${ACME},globex:write:globex=${GLOBEX}`;

/** A stream held open over a raw socket: nothing is read from it until `collect` says so. */
interface HeldStream {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  /** Reads until `until` holds of the newest text, then hangs up; answers everything read. */
  collect(until: (text: string) => boolean, timeoutMs: number): Promise<string>;
  close(): void;
}

function hold(url: string, token: string, headers: Record<string, string> = {}): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { authorization: `Bearer ${token}`, ...headers } }, (response) => {
      response.pause();
      let text = '';
      const close = () => request.destroy();
      if (response.statusCode !== 200) {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text, collect: async () => text, close }));
        response.resume();
        return;
      }
      resolve({
        status: 200,
        headers: response.headers,
        body: '',
        close,
        collect: (until, timeoutMs) =>
          new Promise((done, fail) => {
            const timer = setTimeout(() => {
              close();
              fail(new Error(`stream did not deliver in ${timeoutMs} ms; got ${text.length} characters`));
            }, timeoutMs);
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              // Only the new text and what precedes it closely can complete the marker: no rescan of megabytes per chunk.
              const recent = text.slice(-200) + chunk;
              text += chunk;
              if (until(recent)) {
                clearTimeout(timer);
                close();
                done(text);
              }
            });
            response.resume();
          }),
      });
    });
    request.on('error', (error) => reject(error));
    request.end();
  });
}

const positionsIn = (text: string, type: string) =>
  text
    .split('\n\n')
    .filter((block) => block.includes(`\nevent: ${type}\n`))
    .map((block) => Number(/^id: (\d+)$/m.exec(block)![1]));

forEachBackend(
  'event stream limits and the shared tail',
  (ledger) => {
    const held: HeldStream[] = [];
    const open = async (path: string, token: string, headers?: Record<string, string>) => {
      const stream = await hold(`${ledger.service.url}${path}`, token, headers);
      held.push(stream);
      return stream;
    };
    const streams = () => ledger.service.app.get<ServerSentEventStreams>(EVENT_STREAMS);
    const logText: string[] = [];
    const logDestination = new Writable({
      write(chunk, _encoding, done) {
        logText.push(String(chunk));
        done();
      },
    });

    afterAll(() => {
      for (const stream of held) stream.close();
    });

    it('refuses a stream beyond the per-token and the instance limit with 429 TOO_MANY_EVENT_STREAMS and Retry-After, and takes one again once another closed', async () => {
      const first = await open('/v1/events/stream', ACME);
      const second = await open('/v1/jobs/fires/stream', ACME);
      expect([first.status, second.status]).toEqual([200, 200]);
      const third = await open('/v1/events/stream', ACME);
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toBe('10');
      expect(JSON.parse(third.body).error).toMatchObject({ code: 'TOO_MANY_EVENT_STREAMS', details: { scope: 'token', limit: 2 } });

      // Another token may still open one, up to the instance's limit.
      const globex = await open('/v1/events/stream', GLOBEX);
      expect(globex.status).toBe(200);
      const beyond = await open('/v1/jobs/fires/stream', ADMIN);
      expect(beyond.status).toBe(429);
      expect(JSON.parse(beyond.body).error).toMatchObject({ code: 'TOO_MANY_EVENT_STREAMS', details: { scope: 'instance', limit: 3 } });

      first.close();
      expect(
        await eventually(
          () => streams().size(),
          (size) => size === 2,
        ),
      ).toBe(2);
      const again = await open('/v1/events/stream', ACME);
      expect(again.status).toBe(200);
      for (const stream of [second, globex, again]) stream.close();
      expect(
        await eventually(
          () => streams().size(),
          (size) => size === 0,
        ),
      ).toBe(0);
    });

    it('delivers every event, in order, once, to a stream too slow for the tail: it catches up from the log', { timeout: 60_000 }, async () => {
      // The service's own streams, with a small queue and a filter that stalls on its first event (as a session-key
      // lookup on a busy database does), served over real HTTP.
      const slowStreams = new ServerSentEventStreams(
        ledger.service.infrastructure.eventStore,
        createLogger('debug', logDestination),
        { perToken: 10, total: 10 },
        10,
      );
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let stalled = false;
      const server = Fastify();
      server.get<{ Querystring: { from: string } }>('/stream', (request, reply) => {
        slowStreams.start(reply, {
          owner: 'test',
          label: 'slow',
          fromPosition: Number(request.query.from),
          messageOf: async (event) => {
            if (!event.streamName.endsWith('slow-reader')) return null;
            if (!stalled) {
              stalled = true;
              await gate;
            }
            return { id: event.position, event: event.type, data: { index: event.data.index } };
          },
        });
      });
      await server.listen({ port: 0, host: '127.0.0.1' });
      const port = (server.server.address() as AddressInfo).port;
      try {
        const from = await ledger.service.infrastructure.eventStore.headPosition();
        const slow = await hold(`http://127.0.0.1:${port}/stream?from=${from}`, 'unused');
        expect(slow.status).toBe(200);
        const count = 60;
        const first = await ledger.service.infrastructure.eventStore.append(
          'acme~conversation-slow-reader',
          [{ type: 'BenchNoise', data: { index: 0 } }],
          'no_stream',
        );
        await eventually(
          () => stalled,
          (value) => value,
          10_000,
        );
        // While the stream is held on its first event, far more than its queue holds arrive through the tail.
        const rest = await ledger.service.infrastructure.eventStore.append(
          'acme~conversation-slow-reader',
          Array.from({ length: count - 1 }, (_, index) => ({ type: 'BenchNoise', data: { index: index + 1 } })),
          0,
        );
        // Time for the tail to hand the rest to the held stream, past what its queue holds (it is read every 250 ms at most).
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(logText.join('')).not.toContain('event stream fell behind the tail');
        release();
        const text = await slow.collect((recent) => recent.includes(`id: ${rest.position}\n`), 30_000);
        const positions = positionsIn(text, 'BenchNoise');
        expect(positions).toEqual([first.position, ...Array.from({ length: count - 1 }, (_, index) => rest.position - (count - 2) + index)]);
        // The held stream's queue overflowed: it left the tail and read the rest from the log.
        expect(logText.join('')).toContain('event stream fell behind the tail; catching up from the log');
      } finally {
        await slowStreams.closeAll();
        void server.close();
      }
    });
  },
  { env: { API_TOKEN, MAX_EVENT_STREAMS_PER_TOKEN: '2', MAX_EVENT_STREAMS: '3', JOB_TICK_INTERVAL_MS: '0' } },
);
