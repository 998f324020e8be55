// `npm run ledger -- replay …` and `projections rebuild <name>`: audits and maintenance straight on the stores, no HTTP.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { openInfrastructure } from '../app/infrastructure.js';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config/config.js';
import { LedgerError, ValidationError } from '../errors/ledgerError.js';
import { conversationStreamName } from '../events/conversation/conversationEvents.js';
import type { EventStore } from '../events/eventStore.js';
import { BoundedStateCache } from '../events/boundedStateCache.js';
import { sessionStreamName } from '../events/session/sessionEvents.js';
import { StreamStateStore } from '../events/streamStateStore.js';
import { createLogger } from '../logging/logger.js';
import { conversationDecider, conversationNotFound } from '../modules/conversations/conversationDecider.js';
import { validSessionKey } from '../modules/conversations/conversationRequests.js';
import { sessionDecider, sessionNotFound } from '../modules/sessions/sessionDecider.js';
import { validSessionId } from '../modules/sessions/sessionRequests.js';
import { sessionStateView } from '../modules/sessions/sessionStateView.js';
import { stateAsOf } from '../modules/sessions/stateAsOf.js';

const USAGE = `usage: session-ledger replay (--session <id> | --conversation <key>) [--revision N | --at <ISO time>]
       session-ledger projections list
       session-ledger projections rebuild <name>

Reads the event store named by the service's own configuration (EVENT_STORE_URL, DATA_DIR, ...) and prints the
state as JSON, folded from the stream's first event (no cache, no snapshot): what GET /v1/sessions/{id}/state shows.
On the embedded database, stop the service first: one process at a time may open a PGlite data folder.`;

type Options = { session?: string; conversation?: string; revision?: string; at?: string };

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { session: { type: 'string' }, conversation: { type: 'string' }, revision: { type: 'string' }, at: { type: 'string' } },
  });
  const [command] = positionals;
  const options = values as Options;
  if (command === 'projections') return projectionsCommand(positionals.slice(1));
  if (command !== 'replay' || positionals.length !== 1 || (options.session === undefined) === (options.conversation === undefined)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env, PROJECTIONS_ENABLED: 'false' });
  const infrastructure = await openInfrastructure(config, createLogger(config.logLevel, process.stderr), []);
  try {
    const output = await replay(infrastructure.eventStore, options);
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return 0;
  } finally {
    await infrastructure.close();
  }
}

/** Rebuild empties a projection and replays it from position 0 in this process, printing progress until it is caught up. */
async function projectionsCommand([action, name, ...rest]: string[]): Promise<number> {
  if (!((action === 'list' && name === undefined) || (action === 'rebuild' && name !== undefined && rest.length === 0))) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env, PROJECTIONS_ENABLED: 'false' });
  const infrastructure = await openInfrastructure(config, createLogger(config.logLevel, process.stderr));
  const runner = infrastructure.projections;
  try {
    if (action === 'list') {
      process.stdout.write(`${JSON.stringify(await runner.statuses(), null, 2)}\n`);
      return 0;
    }
    await runner.rebuild(name!);
    await runner.start();
    for (;;) {
      const status = await runner.status(name!);
      process.stderr.write(`\r${name}: position ${status.position}, ${status.lagEvents}${status.lagEvents >= 10_000 ? '+' : ''} events to go, ${status.state}   `);
      if (status.state === 'failed') throw new Error(`projection ${name} failed at position ${status.failedPosition}: ${status.lastError}`);
      if (status.lagEvents === 0 && (status.position > 0 || status.headPosition === 0)) {
        process.stderr.write('\n');
        process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
        return 0;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await runner.stop();
    await infrastructure.close();
  }
}

async function replay(store: EventStore, options: Options) {
  // A cache of size 0 and no snapshot store: every state printed is a fold of the log itself.
  const streams = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 0 }), systemClock);
  if (options.revision !== undefined && options.at !== undefined) throw new ValidationError('give --revision or --at, not both');
  // No bound: everything recorded up to the end of time.
  const bound = options.revision !== undefined ? { revision: wholeNumber(options.revision, '--revision') } : { at: options.at === undefined ? new Date(8.64e15) : isoTime(options.at) };
  if (options.session !== undefined) {
    const id = validSessionId(options.session);
    const then = await stateAsOf(streams, sessionStreamName(id), sessionDecider, bound, () => sessionNotFound(id));
    return sessionStateView(then.state, then);
  }
  const key = validSessionKey(options.conversation!);
  const streamName = conversationStreamName(key);
  const then = await stateAsOf(streams, streamName, conversationDecider, bound, conversationNotFound);
  return { sessionKey: key, revision: then.revision, position: then.position, lastEventAt: then.lastEventAt?.toISOString() ?? null, state: then.state };
}

function wholeNumber(text: string, flag: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new ValidationError(`${flag} must be a whole number`);
  return Number(text);
}

function isoTime(text: string): Date {
  const at = new Date(text);
  if (!/^\d{4}-\d\d-\d\dT/.test(text) || Number.isNaN(at.getTime())) throw new ValidationError('--at must be an ISO 8601 time, e.g. 2026-06-16T09:00:00Z');
  return at;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof TypeError) {
      console.error(error.message);
      process.exit(2);
    }
    if (error instanceof LedgerError) {
      console.error(JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } }));
      process.exit(error.status === 404 ? 3 : 2);
    }
    console.error(error);
    process.exit(1);
  },
);
