// A command line the CLI cannot run: main prints the usage (and this message, if any) and exits with 2.
export class UsageError extends Error {
  constructor(message = '') {
    super(message);
    this.name = 'UsageError';
  }
}
