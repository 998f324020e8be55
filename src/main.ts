// Entry point of `npm start`: the whole service in one process, embedded PGlite unless configured otherwise.
import 'reflect-metadata';
import { ConfigError } from './config/config.js';
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
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
