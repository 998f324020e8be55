// Every log line written while serving a request carries that request's id, whoever writes it.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { runInRequestContext } from '../../src/logging/requestContext.js';

describe('request context in log lines', () => {
  it('adds the request id inside a request, across awaits, and nothing outside one', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger('info', destination);
    await runInRequestContext({ requestId: 'req-1' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info({ token: 'hunter2-hunter2-hunter2', secret: 'very-secret-value' }, 'inside');
    });
    logger.info('outside');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ msg: 'inside', requestId: 'req-1', token: '[redacted]', secret: '[redacted]' });
    expect(lines[1]!.msg).toBe('outside');
    expect(lines[1]).not.toHaveProperty('requestId');
  });
});
