// Entry point of `npm start`: the whole service in one process, embedded PGlite unless configured otherwise.
import 'reflect-metadata';
import { ConfigError } from './config/config.js';
import { DataFolderLockedError } from './database/dataFolderLock.js';
import { serve } from './app/serve.js';

try {
  const service = await serve();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      service.shutdown(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
} catch (error) {
  // Exit codes as the CLI's (src/cli/usage.ts): 2 a wrong configuration value, 4 the data folder is in use.
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  if (error instanceof DataFolderLockedError) {
    console.error(`session-ledger: ${error.message}`);
    process.exit(4);
  }
  throw error;
}
