// A command line the CLI cannot run: main names the problem, points to --help, and exits with 2.
import type { CommandName } from './usage.js';

export class UsageError extends Error {
  constructor(
    message = '',
    /** The command whose --help to point to; none for the command itself. */
    readonly command?: CommandName,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
