// Before a body is parsed: a known path asked with a method it does not take answers 405 with `Allow`, and a
// write whose body is not JSON answers 415, instead of a 404 or a validation error about a missing field.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { LedgerError } from '../errors/ledgerError.js';

export interface RouteLayer {
  route?: { _methods(): string[] };
  match(path: string): unknown;
}

/** Methods whose body means something; a body on GET, HEAD or OPTIONS is ignored as before. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The methods the app's routes take on this path; empty when no route has the path. */
function methodsFor(layers: readonly RouteLayer[], path: string): Set<string> {
  const methods = new Set<string>();
  for (const layer of layers) {
    if (!layer.route) continue;
    let matched: unknown;
    try {
      matched = layer.match(path);
    } catch {
      // A path the router cannot decode: the router itself answers it (MALFORMED_URI).
      return new Set();
    }
    if (matched) for (const method of layer.route._methods()) methods.add(method);
  }
  return methods;
}

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** `routes` reads the router's layers at request time: Nest adds its routes only when the app initialises. */
export function routeGate(routes: () => readonly RouteLayer[]): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const methods = methodsFor(routes(), request.path);
    if (methods.size === 0) return next();
    if (!methods.has(request.method)) {
      const allow = [...methods].join(', ');
      response.setHeader('Allow', allow);
      if (request.method === 'OPTIONS') {
        response.status(204).end();
        return;
      }
      return next(new LedgerError('METHOD_NOT_ALLOWED', `${request.path} does not take ${request.method}; it takes ${allow}`, 405, { allow: [...methods] }));
    }
    if (BODY_METHODS.has(request.method) && hasBody(request) && !isJson(request.headers['content-type'])) {
      const given = request.headers['content-type'];
      return next(
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
    next();
  };
}
