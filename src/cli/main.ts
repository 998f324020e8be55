#!/usr/bin/env node
// `session-ledger …` (the package's bin): serve, replay, events, projections, export, import hermes.
import 'reflect-metadata';
import { ConfigError } from '../config/config.js';
import { LedgerError } from '../errors/ledgerError.js';
import { LedgerApiError, LedgerNetworkError } from '../client/index.js';
import { eventsCommand } from './eventsCommand.js';
import { exportCommand } from './exportCommand.js';
import { importCommand } from './importCommand.js';
import { projectionsCommand } from './projectionsCommand.js';
import { replayCommand } from './replayCommand.js';
import { serveCommand } from './serveCommand.js';
import { USAGE } from './usage.js';
import { UsageError } from './usageError.js';

const commands: Record<string, (args: string[]) => Promise<number | 'running'>> = {
  serve: serveCommand,
  replay: replayCommand,
  events: eventsCommand,
  projections: projectionsCommand,
  export: exportCommand,
  import: importCommand,
};

async function main([command, ...args]: string[]): Promise<number | 'running'> {
  const run = command === undefined ? undefined : commands[command];
  if (!run) throw new UsageError(command === undefined || command === '--help' || command === 'help' ? '' : `unknown command ${command}`);
  return run(args);
}

/** 2: the command line or the input is wrong; 3: what it names does not exist; 1: anything else. */
function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) {
    console.error(error.message ? `${error.message}\n\n${USAGE}` : USAGE);
    return 2;
  }
  // parseArgs refuses unknown or malformed options with a TypeError of its own.
  if (error instanceof ConfigError || (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
    console.error(error.message);
    return 2;
  }
  if (error instanceof LedgerError || error instanceof LedgerApiError) {
    console.error(JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } }));
    return error.status === 404 ? 3 : 2;
  }
  if (error instanceof LedgerNetworkError) {
    console.error(error.message);
    return 1;
  }
  console.error(error);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 'running') process.exit(code);
  },
  (error: unknown) => process.exit(exitCodeFor(error)),
);
