// Express middleware: counts and times every request by route template (never the raw path, which would make series unbounded).
import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { LedgerMetrics } from './ledgerMetrics.js';

/** Paths served outside Nest's router, each labelled by its fixed prefix. */
const STATIC_PREFIXES = ['/console', '/docs'];

/** `/v1/sessions/:id/turns` for a Nest route; a static prefix; else `unmatched` (404s, scanners). */
export function routeLabel(request: Request): string {
  const route = (request as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${request.baseUrl}${route.path}`;
  const path = request.originalUrl.split('?', 1)[0]!;
  return STATIC_PREFIXES.find((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ?? 'unmatched';
}

export function requestMetering(metrics: LedgerMetrics) {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = performance.now();
    // 'close' comes for finished and for aborted responses alike (a client gone mid-answer, an event stream closed).
    response.once('close', () => {
      const route = routeLabel(request);
      const method = request.method;
      const statusClass = response.headersSent ? `${Math.floor(response.statusCode / 100)}xx` : 'aborted';
      metrics.httpRequests.inc({ method, route, status_class: statusClass });
      metrics.httpDuration.observe({ method, route }, (performance.now() - started) / 1000);
      const errorCode: unknown = response.locals.errorCode;
      if (typeof errorCode === 'string') metrics.httpErrors.inc({ code: errorCode, status: String(response.statusCode) });
    });
    next();
  };
}
