// Request bodies: body-parser's JSON parser reads every body (BODY_LIMIT, charsets, gzip/deflate/br, the error
// types the filter maps), then the depth and character checks run on the parsed body and the query.
import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { limitJsonDepth } from './jsonDepth.js';
import { hasBody } from './routeGate.js';
import { rejectUnsupportedCharacters } from './unsupportedCharacters.js';

type ParsedRequest = IncomingMessage & { body?: unknown };

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
