// Gives each request an id (X-Request-Id in and out) and logs one line when it finishes.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { withIdempotentWriteSlot } from '../events/idempotentWrite.js';
import { withWriteFenceSlot } from '../events/writeFence.js';
import type { Logger } from '../logging/logger.js';
import { runInRequestContext } from '../logging/requestContext.js';
import { requestPath } from './httpTypes.js';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's `genReqId`: the caller's X-Request-Id when it is well formed, else a new one. */
export function incomingRequestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : randomUUID();
}

export function requestLogging(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const id = request.id;
    const response = reply.raw;
    // On the raw response: every answer carries it, an event stream (which takes over the response) as well.
    response.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = response.statusCode >= 500 ? 'error' : 'debug';
      logger[level](
        { requestId: id, method: request.method, path: requestPath(request), status: response.statusCode, durationMs: Math.round(durationMs * 100) / 100 },
        'request',
      );
    });
    done();
  });
  // Last before the handler, once the body is read (reading it runs in the socket's context, not the hook's): the
  // handler runs inside the request's log context and the slot the idempotency interceptor fills.
  fastify.addHook('preHandler', (request, _reply, done) => {
    runInRequestContext({ requestId: request.id }, () => withIdempotentWriteSlot(() => withWriteFenceSlot(done)));
  });
}
