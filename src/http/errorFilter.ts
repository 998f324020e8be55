// The one exception filter: every error leaves as {"error": {"code", "message", ...}} with a fitting status.
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { noteErrorCode } from './httpTypes.js';
import { z } from 'zod';
import { isConnectionError } from '../database/connectionErrors.js';
import { LedgerError } from '../errors/ledgerError.js';
import type { Logger } from '../logging/logger.js';
import { LOGGER } from '../logging/logger.js';

export interface ErrorBody {
  error: { code: string; message: string; requestId?: string; details?: unknown };
}

const HTTP_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
};

/** Turns anything thrown while serving a request into a status and an error body. */
export function describeError(error: unknown): { status: number; body: ErrorBody['error']; unexpected: boolean } {
  if (error instanceof LedgerError) {
    return { status: error.status, body: { code: error.code, message: error.message, details: error.details }, unexpected: false };
  }
  if (error instanceof z.ZodError) {
    const details = error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message, code: issue.code }));
    return { status: 400, body: { code: 'VALIDATION_FAILED', message: summarise(details), details }, unexpected: false };
  }
  // body-parser's own errors carry a `type` and a status.
  const parserType = (error as { type?: unknown } | null)?.type;
  if (parserType === 'entity.parse.failed')
    return { status: 400, body: { code: 'MALFORMED_JSON', message: 'the request body is not valid JSON' }, unexpected: false };
  if (parserType === 'entity.too.large') {
    const limit = (error as { limit?: number }).limit;
    return { status: 413, body: { code: 'PAYLOAD_TOO_LARGE', message: `the request body exceeds the limit of ${limit} bytes` }, unexpected: false };
  }
  if (parserType === 'charset.unsupported' || parserType === 'encoding.unsupported') {
    return { status: 415, body: { code: 'UNSUPPORTED_ENCODING', message: (error as Error).message }, unexpected: false };
  }
  if (typeof parserType === 'string' && typeof (error as { status?: unknown }).status === 'number') {
    const status = (error as { status: number }).status;
    if (status >= 400 && status < 500) return { status: 400, body: { code: 'BAD_REQUEST', message: (error as Error).message }, unexpected: false };
  }
  if (error instanceof HttpException) {
    // Nest wraps body-parser and URI errors; the original says what went wrong.
    const cause = error.cause as { type?: unknown } | undefined;
    if (cause && typeof cause.type === 'string') return describeError(cause);
    if (cause instanceof URIError)
      return { status: 400, body: { code: 'MALFORMED_URI', message: 'the URL holds an invalid percent-encoding' }, unexpected: false };
    const status = error.getStatus();
    return {
      status,
      body: { code: HTTP_CODES[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST'), message: error.message },
      unexpected: status >= 500,
    };
  }
  // Fastify's own refusals (a content length that does not match the body, say) carry a code and a 4xx status.
  const fastifyStatus = (error as { statusCode?: unknown } | null)?.statusCode;
  if (
    String((error as { code?: unknown } | null)?.code).startsWith('FST_') &&
    typeof fastifyStatus === 'number' &&
    fastifyStatus >= 400 &&
    fastifyStatus < 500
  ) {
    return { status: fastifyStatus, body: { code: HTTP_CODES[fastifyStatus] ?? 'BAD_REQUEST', message: (error as Error).message }, unexpected: false };
  }
  if (isConnectionError(error)) {
    return { status: 503, body: { code: 'DATABASE_UNAVAILABLE', message: 'the database is unreachable; retry shortly' }, unexpected: false };
  }
  return { status: 500, body: { code: 'INTERNAL_ERROR', message: 'an unexpected error occurred' }, unexpected: true };
}

function summarise(details: Array<{ path: string; message: string }>): string {
  const first = details[0];
  if (!first) return 'the request is invalid';
  const where = first.path ? `${first.path}: ` : '';
  return `${where}${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`;
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  const { status, body, unexpected } = describeError(error);
  const requestId = request.id;
  if (unexpected) logger.error({ err: error, requestId, method: request.method, url: request.originalUrl }, 'request failed');
  // An answer already under way (an event stream, which took the response over) cannot be replaced: it ends.
  if (reply.sent || reply.raw.headersSent) {
    if (!reply.raw.writableEnded) reply.raw.end();
    return;
  }
  if (error instanceof LedgerError && error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
  // For the request metering: errors are counted by their code.
  noteErrorCode(reply.raw, body.code);
  // Set before sending: a route that set a Content-Type of its own (the /metrics text) would otherwise refuse the object.
  reply
    .header('Content-Type', 'application/json; charset=utf-8')
    .status(status)
    .send({ error: { ...body, requestId } satisfies ErrorBody['error'] });
}

@Catch()
export class LedgerExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}
