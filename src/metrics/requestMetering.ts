// Counts and times every request by route template (never the raw path, which would make series unbounded).
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorCodeOf, requestPath } from '../http/httpTypes.js';
import type { LedgerMetrics } from './ledgerMetrics.js';

/** Paths served outside the API's routes, each labelled by its fixed prefix. */
const STATIC_PREFIXES = ['/console', '/docs'];

const underPrefix = (path: string) => STATIC_PREFIXES.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));

/** `/v1/sessions/:id/turns` for a route; a static prefix; else `unmatched` (404s, scanners). */
export function routeLabel(request: FastifyRequest): string {
  const template = request.is404 ? undefined : request.routeOptions.url;
  if (template !== undefined) return underPrefix(template) ?? template;
  return underPrefix(requestPath(request)) ?? 'unmatched';
}

export function requestMetering(fastify: FastifyInstance, metrics: LedgerMetrics): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const started = performance.now();
    const response = reply.raw;
    // 'close' comes for finished and for aborted responses alike (a client gone mid-answer, an event stream closed).
    response.once('close', () => {
      const route = routeLabel(request);
      const method = request.method;
      const statusClass = response.headersSent ? `${Math.floor(response.statusCode / 100)}xx` : 'aborted';
      metrics.httpRequests.inc({ method, route, status_class: statusClass });
      metrics.httpDuration.observe({ method, route }, (performance.now() - started) / 1000);
      const errorCode = errorCodeOf(response);
      if (errorCode !== undefined) metrics.httpErrors.inc({ code: errorCode, status: String(response.statusCode) });
    });
    done();
  });
}
