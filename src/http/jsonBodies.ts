// Request bodies: body-parser's JSON parser reads every body (BODY_LIMIT, charsets, gzip/deflate/br, the error
// types the filter maps), then the depth and character checks run on the parsed body and the query.
import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LedgerError } from '../errors/ledgerError.js';
import { limitJsonDepth } from './jsonDepth.js';
import { hasBody } from './routeGate.js';
import { rejectUnsupportedCharacters } from './unsupportedCharacters.js';

type ParsedRequest = IncomingMessage & { body?: unknown };

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

/** BODY_LIMIT in bytes, as body-parser reads it (`1mb` is 1024 × 1024; a bare number is bytes). */
export function bodyLimitBytes(limit: string): number {
  const [, amount, unit] = /^(\d+)(b|kb|mb)?$/i.exec(limit) ?? [];
  if (amount === undefined) throw new Error(`not a body size: ${limit}`);
  return Number(amount) * UNITS[(unit ?? 'b').toLowerCase()]!;
}

export function jsonBodies(fastify: FastifyInstance, options: { limit: string; jsonDepth: number }): void {
  const parseJson = bodyParser.json({ limit: options.limit, strict: false });
  const read = (request: FastifyRequest, done: (error: Error | null, body?: unknown) => void) => {
    const raw = request.raw as ParsedRequest;
    // body-parser hands the response only to a `verify` option, which this parser has none of.
    parseJson(raw, undefined as unknown as ServerResponse, (error?: unknown) => {
      if (error) done(error as Error);
      else done(null, raw.body);
    });
  };
  // The route gate has refused a write whose body is not JSON: what reaches a parser is JSON (or a body on a
  // method whose body means nothing), and body-parser itself skips a body of another type.
  // A body declared too large is refused from its Content-Length, before a byte of it is read: body-parser would read
  // (and drop) every declared byte before answering, holding the connection up to the request timeout. The
  // connection closes after the answer, as the rest of the body is never read.
  const limitBytes = bodyLimitBytes(options.limit);
  fastify.addHook('onRequest', (request, reply, done) => {
    const declared = request.headers['content-length'];
    if (declared === undefined || !/^\d+$/.test(declared) || Number(declared) <= limitBytes) return done();
    reply.raw.setHeader('Connection', 'close');
    done(
      new LedgerError('PAYLOAD_TOO_LARGE', `the request body declares ${declared} bytes (Content-Length); the limit is BODY_LIMIT (${limitBytes} bytes)`, 413, {
        limit: limitBytes,
        contentLength: Number(declared),
      }),
    );
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => read(request, done));
  fastify.addHook('preValidation', (request, _reply, done) => {
    const check = () => {
      const refusal = limitJsonDepth(request.body, options.jsonDepth) ?? rejectUnsupportedCharacters(request.body, request.query);
      done(refusal ?? undefined);
    };
    // Fastify reads no body on GET or HEAD; a body sent with one is still refused when too large, malformed or too
    // deep, as on a write. Read here (rarely: a GET carries a body only from a confused or hostile client).
    if ((request.method === 'GET' || request.method === 'HEAD') && hasBody(request.headers)) {
      read(request, (error, body) => {
        if (error) return done(error);
        request.body = body;
        check();
      });
      return;
    }
    check();
  });
}
