#!/usr/bin/env node
// `session-ledger …` (run through bin/session-ledger.js): serve, replay, events, projections, export, import hermes, search, mcp.
import 'reflect-metadata';
import { ConfigError } from '../config/config.js';
import { DataFolderLockedError } from '../database/dataFolderLock.js';
import { LedgerError } from '../errors/ledgerError.js';
import { LedgerApiError, LedgerNetworkError } from '../client/index.js';
import { type CommandName, COMMAND_USAGE, isCommandName, USAGE } from './usage.js';
import { UsageError } from './usageError.js';

type Command = (args: string[]) => Promise<number | 'running'>;

// Loaded on use: --help and a wrong command line answer without loading the service (Nest, the databases).
const commands: Record<CommandName, () => Promise<Command>> = {
  serve: async () => (await import('./serveCommand.js')).serveCommand,
  replay: async () => (await import('./replayCommand.js')).replayCommand,
  events: async () => (await import('./eventsCommand.js')).eventsCommand,
  projections: async () => (await import('./projectionsCommand.js')).projectionsCommand,
  export: async () => (await import('./exportCommand.js')).exportCommand,
  import: async () => (await import('./importCommand.js')).importCommand,
  search: async () => (await import('./searchCommand.js')).searchCommand,
  mcp: async () => (await import('./mcpCommand.js')).mcpCommand,
};

const HELP = new Set(['--help', '-h']);

/** --help or -h anywhere before a `--` asks for help, whatever else the line holds. */
const asksForHelp = (args: string[]) => {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => HELP.has(arg));
};

async function main([command, ...args]: string[]): Promise<number | 'running'> {
  if (command === undefined) throw new UsageError('no command given');
  if (HELP.has(command) || command === 'help') {
    const topic = args[0];
    process.stdout.write(`${topic !== undefined && isCommandName(topic) ? COMMAND_USAGE[topic] : USAGE}\n`);
    return 0;
  }
  if (!isCommandName(command)) throw new UsageError(`unknown command ${command}`);
  if (asksForHelp(args)) {
    process.stdout.write(`${COMMAND_USAGE[command]}\n`);
    return 0;
  }
  try {
    return await (
      await commands[command]()
    )(args);
  } catch (error) {
    throw asUsageError(error, command) ?? error;
  }
}

/** parseArgs refuses unknown or malformed options with a TypeError of its own: said in our words, naming the option. */
function asUsageError(error: unknown, command: CommandName): UsageError | undefined {
  if (error instanceof UsageError) return error.command ? error : new UsageError(error.message, command);
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof TypeError) || typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return undefined;
  const unknownOption = /^Unknown option '([^']+)'/.exec(error.message);
  if (unknownOption) return new UsageError(`unknown option ${unknownOption[1]}`, command);
  const unexpected = /^Unexpected argument '([^']*)'/.exec(error.message);
  if (unexpected) return new UsageError(`unexpected argument ${unexpected[1]}`, command);
  return new UsageError(error.message.replace(/^Option /, 'option ').replace(/\. To specify.*$/s, ''), command);
}

/** The synopsis lines of a usage text: what a wrong command line is shown before the pointer to --help. */
const synopsis = (usage: string) => usage.split('\n\n')[0];

/** See EXIT_CODES in usage.ts: 0 done, 1 failed, 2 wrong command line or value, 3 not found, 4 refused for now. */
function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) {
    const name = error.command ? `session-ledger ${error.command}` : 'session-ledger';
    const lines = [`${name}: ${error.message || 'incomplete command line'}`];
    if (error.command) lines.push(synopsis(COMMAND_USAGE[error.command]));
    lines.push(`see ${name} --help`);
    console.error(lines.join('\n'));
    return 2;
  }
  if (error instanceof ConfigError) {
    console.error(error.message);
    return 2;
  }
  if (error instanceof DataFolderLockedError) {
    console.error(`session-ledger: ${error.message}`);
    return 4;
  }
  if (error instanceof LedgerError || error instanceof LedgerApiError) {
    console.error(JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } }));
    return exitCodeForStatus(error.status);
  }
  if (error instanceof LedgerNetworkError) {
    console.error(error.message);
    return 1;
  }
  console.error(error);
  return 1;
}

function exitCodeForStatus(status: number): number {
  if (status === 404) return 3;
  if (status === 409 || status === 423 || status === 429 || status === 503) return 4;
  if (status >= 400 && status < 500) return 2;
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 'running') process.exit(code);
  },
  (error: unknown) => process.exit(exitCodeFor(error)),
);
