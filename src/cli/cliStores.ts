// The stores the service's own configuration names, opened for one CLI command: no HTTP, projections off unless asked for.
import type { Infrastructure } from '../app/infrastructure.js';
import { type LedgerConfig, loadConfig } from '../config/config.js';
import { createLogger } from '../logging/logger.js';
import type { Projection } from '../projections/projection.js';

export interface CliStores {
  config: LedgerConfig;
  infrastructure: Infrastructure;
}

/**
 * Opens what EVENT_STORE_URL, DATABASE_URL, DATA_DIR ... name, with the projection runner stopped: a command that
 * needs it starts it. On the embedded database only one process may open the data folder: stop the service first.
 */
export async function openCliStores(projections?: readonly Projection[]): Promise<CliStores> {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env, PROJECTIONS_ENABLED: 'false' });
  // Loaded here, not at the top: the database drivers and TypeORM take half a second of start-up that a refused command line need not pay.
  const { openInfrastructure } = await import('../app/infrastructure.js');
  const infrastructure = await openInfrastructure(config, createLogger(config.logLevel, process.stderr), projections);
  return { config, infrastructure };
}

/** Runs `work` on freshly opened stores and closes them whatever happens. */
export async function withCliStores<T>(work: (stores: CliStores) => Promise<T>, projections?: readonly Projection[]): Promise<T> {
  const stores = await openCliStores(projections);
  try {
    return await work(stores);
  } finally {
    await stores.infrastructure.projections.stop();
    await stores.infrastructure.close();
  }
}
