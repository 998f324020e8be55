// A graceful stop (SIGTERM's path, serve().shutdown) waits for requests in flight but not for event streams, which
// never finish by themselves, however the stream's path is spelt.
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.js';
import { IN_MEMORY_DATA_DIR } from '../../src/app/infrastructure.js';
import { createLogger } from '../../src/logging/logger.js';
import { serve } from '../../src/app/serve.js';
import { e2eBackends } from '../support/testApp.js';
import { uniqueSchema } from '../support/testDatabases.js';

const SHUTDOWN_TIMEOUT_MS = 20_000;

for (const backend of e2eBackends()) {
  describe(`graceful stop: ${backend}`, () => {
    const schema = uniqueSchema('stop');
    afterAll(async () => {
      if (backend !== 'postgres') return;
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}_es" CASCADE; DROP SCHEMA IF EXISTS "${schema}_rm" CASCADE`);
      await client.end();
    });

    it('ends at once with event streams open on paths spelt in capitals or percent-encoded, and cuts them', { timeout: 90_000 }, async () => {
      const config = loadConfig({
        PORT: '0',
        LOG_LEVEL: 'silent',
        HEAP_GROWTH_PERCENT: '0',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        EVENT_STORE_SCHEMA: `${schema}_es`,
        READ_MODEL_SCHEMA: `${schema}_rm`,
        ...(backend === 'postgres' ? { EVENT_STORE_URL: process.env.TEST_DATABASE_URL!, DB_POOL_SIZE: '5' } : { DATA_DIR: IN_MEMORY_DATA_DIR }),
      });
      const service = await serve(config, createLogger(config.logLevel));
      const paths = ['/v1/events/stream', '/V1/EVENTS/stream', '/%761/events/stream', '/v1/Jobs/fires/stream'];
      const streams = await Promise.all(
        paths.map(async (path) => {
          const response = await fetch(`${service.url}${path}`);
          expect([path, response.status, response.headers.get('content-type')]).toEqual([path, 200, 'text/event-stream; charset=utf-8']);
          // Wrapped: an async function returning the read itself would wait for the stream to end.
          return {
            read: response.text().then(
              () => 'ended',
              () => 'cut',
            ),
          };
        }),
      );
      const started = Date.now();
      await service.shutdown('test');
      expect(Date.now() - started).toBeLessThan(SHUTDOWN_TIMEOUT_MS / 4);
      // Every stream is over: the client resumes elsewhere with Last-Event-ID.
      for (const { read } of streams) expect(['ended', 'cut']).toContain(await read);
    });
  });
}
