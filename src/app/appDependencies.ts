// What the Nest application is built around: opened infrastructure, config, logger and the one clock.
import type { Clock } from '../clock.js';
import type { LedgerConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import type { Infrastructure } from './infrastructure.js';

export interface AppDependencies {
  config: LedgerConfig;
  logger: Logger;
  clock: Clock;
  infrastructure: Infrastructure;
}
