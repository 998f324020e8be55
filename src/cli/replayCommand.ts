// `replay (--session <id> | --conversation <key>) [--revision N | --at T]`: a state folded from the log alone.
import { parseArgs } from 'node:util';
import { systemClock } from '../clock.js';
import { ValidationError } from '../errors/ledgerError.js';
import { BoundedStateCache } from '../events/boundedStateCache.js';
import { conversationStreamName } from '../events/conversation/conversationEvents.js';
import type { EventStore } from '../events/eventStore.js';
import { sessionStreamName } from '../events/session/sessionEvents.js';
import { StreamStateStore } from '../events/streamStateStore.js';
import { conversationDecider, conversationNotFound } from '../modules/conversations/domain/conversationDecider.js';
import { validSessionKey } from '../modules/conversations/conversationRequests.js';
import { sessionDecider, sessionNotFound } from '../modules/sessions/domain/sessionDecider.js';
import { validSessionId } from '../modules/sessions/sessionRequests.js';
import { sessionStateView } from '../modules/sessions/sessionStateView.js';
import { stateAsOf } from '../modules/sessions/stateAsOf.js';
import { withCliStores } from './cliStores.js';
import { isoTime, wholeNumber } from './optionValues.js';
import { UsageError } from './usageError.js';

interface ReplayOptions {
  session?: string;
  conversation?: string;
  revision?: string;
  at?: string;
  tenant?: string;
}

export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      session: { type: 'string' },
      conversation: { type: 'string' },
      revision: { type: 'string' },
      at: { type: 'string' },
      tenant: { type: 'string' },
    },
  });
  const options = values as ReplayOptions;
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if ((options.session === undefined) === (options.conversation === undefined)) throw new UsageError('give one of --session <id> or --conversation <key>');
  // No projections: what it prints is a fold of the log and nothing else.
  return withCliStores(async ({ infrastructure }) => {
    process.stdout.write(`${JSON.stringify(await replay(infrastructure.eventStore, options), null, 2)}\n`);
    return 0;
  }, []);
}

async function replay(store: EventStore, options: ReplayOptions) {
  // A cache of size 0 and no snapshot store: every state printed is a fold of the log itself.
  const streams = new StreamStateStore(store, new BoundedStateCache({ maxEntries: 0 }), systemClock);
  if (options.revision !== undefined && options.at !== undefined) throw new ValidationError('give --revision or --at, not both');
  // No bound: everything recorded up to the end of time.
  const bound =
    options.revision !== undefined
      ? { revision: wholeNumber(options.revision, '--revision') }
      : { at: options.at === undefined ? new Date(8.64e15) : isoTime(options.at, '--at') };
  if (options.session !== undefined) {
    const id = validSessionId(options.session);
    const then = await stateAsOf(streams, sessionStreamName(id, options.tenant), sessionDecider, bound, () => sessionNotFound(id));
    return sessionStateView(then.state, then);
  }
  const key = validSessionKey(options.conversation!);
  const then = await stateAsOf(streams, conversationStreamName(key, options.tenant), conversationDecider, bound, conversationNotFound);
  return { sessionKey: key, revision: then.revision, position: then.position, lastEventAt: then.lastEventAt?.toISOString() ?? null, state: then.state };
}
