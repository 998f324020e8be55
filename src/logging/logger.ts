// Structured JSON logs through pino; the one logger every part of the service writes to.
import { pino, type Logger } from 'pino';
import { currentRequestId } from './requestContext.js';

export type { Logger } from 'pino';

/** Injection token of the service's Logger. */
export const LOGGER = Symbol('Logger');

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'session-ledger' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Any line written while serving a request carries its id, whoever writes it.
      mixin() {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
      // Tokens and secrets never reach a log line, whatever object a caller passes.
      redact: {
        paths: [
          'authorization',
          'req.headers.authorization',
          '*.authorization',
          'apiToken',
          '*.apiToken',
          'apiTokens',
          '*.apiTokens',
          'token',
          '*.token',
          'secret',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}
