// Entry point of `npm start`: the whole service in one process, embedded PGlite unless configured otherwise.
import 'reflect-metadata';
import { ConfigError, type LedgerConfig, loadConfig } from './config/config.js';
import { DataFolderLockedError } from './database/dataFolderLock.js';
import { type RunningService, serve } from './app/serve.js';
import { createLogger } from './logging/logger.js';

// Ctrl-C in a terminal signals the whole process group: npm and node each get SIGINT, and npm forwards its own to
// node, so one keypress is two signals here. The first starts the graceful shutdown and the second is ignored; a
// third (Ctrl-C pressed again) exits at once. Past the shutdown's own deadline (armDeadline) the process exits as well.
const FORCE_AFTER_SIGNALS = 3;

// Exit codes as the CLI's (src/cli/usage.ts): 2 a wrong configuration value, 4 the data folder is in use.
function configOrExit(): LedgerConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}

const config = configOrExit();
const logger = createLogger(config.logLevel);

let service: RunningService | undefined;
let stopRequested: NodeJS.Signals | undefined;
let signalsSeen = 0;

/**
 * From the first stop signal on, however far the start got: the wait for requests in flight (SHUTDOWN_TIMEOUT_MS,
 * which may be 0), then closing the databases, which gets at least 10 s of its own.
 */
const armDeadline = (reason: string) => {
  const timeoutMs = config.shutdownTimeoutMs + Math.max(10_000, config.shutdownTimeoutMs);
  setTimeout(() => {
    logger.error({ reason, timeoutMs }, 'shutdown did not finish in time: exiting');
    process.exit(1);
  }, timeoutMs).unref();
};

const stop = (running: RunningService, reason: string) => {
  running.shutdown(reason).then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
};

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    signalsSeen += 1;
    if (signalsSeen >= FORCE_AFTER_SIGNALS) {
      logger.warn({ signal, signalsSeen }, 'stop signal repeated: exiting without finishing the shutdown');
      process.exit(130);
    }
    if (stopRequested !== undefined) {
      logger.info({ signal }, 'already stopping; signal again to exit at once');
      return;
    }
    stopRequested = signal;
    armDeadline(signal);
    if (service) stop(service, signal);
    else logger.info({ signal }, 'stopping as soon as the start-up has finished');
  });
}

try {
  service = await serve(config, logger);
  if (stopRequested !== undefined) stop(service, stopRequested);
} catch (error) {
  if (error instanceof DataFolderLockedError) {
    console.error(`session-ledger: ${error.message}`);
    process.exit(4);
  }
  throw error;
}
