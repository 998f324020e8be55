// The HTTP adapter's request and reply types (Fastify's), as every controller, guard and filter sees them.
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A request: the query parsed into strings (or lists of them, for a repeated name), the route's parameters by name. */
export type Request = FastifyRequest<{ Querystring: Record<string, string | string[] | undefined>; Params: Record<string, string> }>;
export type Response = FastifyReply;

/** The URL's path, without its query string. */
export function requestPath(request: { url: string }): string {
  const query = request.url.indexOf('?');
  return query === -1 ? request.url : request.url.slice(0, query);
}

const errorCodes = new WeakMap<ServerResponse, string>();

/** Notes the error code a response answers with, for the request metering (counted by code when the response closes). */
export function noteErrorCode(response: ServerResponse, code: string): void {
  errorCodes.set(response, code);
}

export function errorCodeOf(response: ServerResponse): string | undefined {
  return errorCodes.get(response);
}
