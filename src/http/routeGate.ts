// Before a body is parsed: a known path asked with a method it does not take answers 405 with `Allow`, and a
// write whose body is not JSON answers 415, instead of a 404 or a validation error about a missing field.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { LedgerError } from '../errors/ledgerError.js';
import { requestPath } from './httpTypes.js';

/** Methods whose body means something; a body on GET, HEAD or OPTIONS is ignored. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Every method a route of the service may take, in the order `Allow` lists them. */
const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods the app's routes take on this path; empty when no route has the path. */
function methodsFor(fastify: FastifyInstance, path: string): string[] {
  return ROUTE_METHODS.filter((method) => fastify.findRoute({ method, url: path }) !== null);
}

export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export function routeGate(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    // The router matched a route for the path and method: only the 415 is left to check. Only a request the router
    // sent to the not-found handler pays for the lookup of the methods the path does take.
    if (request.is404) {
      const path = requestPath(request);
      const methods = methodsFor(fastify, path);
      if (methods.length === 0) return done();
      const allow = methods.join(', ');
      // On the raw response, so that the error answer carries it too.
      reply.raw.setHeader('Allow', allow);
      if (request.method === 'OPTIONS') {
        reply.code(204).send();
        return;
      }
      return done(new LedgerError('METHOD_NOT_ALLOWED', `${path} does not take ${request.method}; it takes ${allow}`, 405, { allow: methods }));
    }
    const { headers } = request;
    if (BODY_METHODS.has(request.method) && hasBody(headers) && !isJson(headers['content-type'])) {
      const given = headers['content-type'];
      return done(
        new LedgerError(
          'UNSUPPORTED_MEDIA_TYPE',
          `the body must be JSON sent as Content-Type: application/json${given ? `, not ${given}` : '; no Content-Type was given'}`,
          415,
          {
            contentType: given ?? null,
          },
        ),
      );
    }
    done();
  });
}
