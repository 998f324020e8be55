// Starts the service from configuration and shuts it down gracefully on SIGTERM/SIGINT.
import type { Server, ServerResponse } from 'node:http';
import { systemClock } from '../clock.js';
import { type LedgerConfig, loadConfig } from '../config/config.js';
import { createLogger, type Logger } from '../logging/logger.js';
import type { ServerSentEventStreams } from '../http/serverSentEventStreams.js';
import { createApp } from './createApp.js';
import { applyHeapGrowth } from './heapGrowth.js';
import { openInfrastructure } from './infrastructure.js';
import { EVENT_STREAMS } from '../http/serverSentEventStreams.js';

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
  const streams = app.get<ServerSentEventStreams>(EVENT_STREAMS);
  const inFlight = new Set<ServerResponse>();
  // An event stream never finishes by itself: shutdown cuts it and the client resumes with Last-Event-ID.
  const requestsLeft = () => [...inFlight].filter((response) => !streams.isStream(response)).length;
  let idle: (() => void) | undefined;
  const checkIdle = () => {
    if (idle && requestsLeft() === 0) idle();
  };
  server.on('request', (_request, response: ServerResponse) => {
    inFlight.add(response);
    response.on('close', () => {
      inFlight.delete(response);
      checkIdle();
    });
  });
  streams.onOpened(checkIdle);
  await app.listen(config.port, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, eventStore: infrastructure.eventStore.backend }, `session ledger listening on ${url}`);

  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    stopping ??= (async () => {
      logger.info({ reason, inFlight: requestsLeft() }, 'shutting down: no new connections, finishing requests in flight');
      server.close();
      server.closeIdleConnections();
      if (requestsLeft() > 0) {
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
