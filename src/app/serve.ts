// Starts the service from configuration and shuts it down gracefully on SIGTERM/SIGINT.
import type { Server } from 'node:http';
import { systemClock } from '../clock.js';
import { type LedgerConfig, loadConfig } from '../config/config.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { EVENT_STREAM_PATH } from '../modules/eventFeed/eventStreamController.js';
import { JOB_FIRES_STREAM_PATH } from '../modules/jobs/delivery/jobFiresStreamController.js';
import { createApp } from './createApp.js';
import { applyHeapGrowth } from './heapGrowth.js';
import { openInfrastructure } from './infrastructure.js';

export interface RunningService {
  url: string;
  shutdown(reason: string): Promise<void>;
}

export async function serve(config: LedgerConfig = loadConfig(), logger: Logger = createLogger(config.logLevel)): Promise<RunningService> {
  applyHeapGrowth(config.heapGrowthPercent);
  if (config.apiTokens.length === 0) logger.warn({ host: config.host }, 'API_TOKEN is not set: serving without authentication, on loopback only');
  const infrastructure = await openInfrastructure(config, logger);
  const app = await createApp({ config, logger, clock: systemClock, infrastructure });
  const server = app.getHttpServer() as Server;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  server.on('request', (request, response) => {
    // An event stream never finishes by itself: shutdown cuts it and the client resumes with Last-Event-ID.
    if (request.url?.startsWith(JOB_FIRES_STREAM_PATH) || request.url?.startsWith(EVENT_STREAM_PATH)) return;
    inFlight += 1;
    response.on('close', () => {
      inFlight -= 1;
      if (inFlight === 0) idle?.();
    });
  });
  await app.listen(config.port, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, eventStore: infrastructure.eventStore.backend }, `session ledger listening on ${url}`);

  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    stopping ??= (async () => {
      logger.info({ reason, inFlight }, 'shutting down: no new connections, finishing requests in flight');
      server.close();
      server.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, config.shutdownTimeoutMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      server.closeAllConnections();
      await app.close();
      await infrastructure.close();
      logger.info('stopped');
    })();
    return stopping;
  };
  return { url, shutdown };
}
