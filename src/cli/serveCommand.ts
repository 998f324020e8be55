// `serve`: the service itself, exactly as `npm start` runs it (the entry point owns the signals and the exit code).
import { UsageError } from './usageError.js';

export async function serveCommand(args: string[]): Promise<'running'> {
  if (args.length > 0) throw new UsageError('serve takes no arguments: configure it with environment variables (see README)');
  await import('../main.js');
  return 'running';
}
