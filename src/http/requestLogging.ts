// Gives each request an id (X-Request-Id in and out) and logs one line when it finishes.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logging/logger.js';
import { runInRequestContext } from '../logging/requestContext.js';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestLogging(logger: Logger) {
  return (request: Request, response: Response, next: NextFunction) => {
    const incoming = request.headers['x-request-id'];
    const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    (request as Request & { id: string }).id = id;
    response.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = response.statusCode >= 500 ? 'error' : 'debug';
      logger[level](
        { requestId: id, method: request.method, path: request.path, status: response.statusCode, durationMs: Math.round(durationMs * 100) / 100 },
        'request',
      );
    });
    runInRequestContext({ requestId: id }, next);
  };
}
