// `events`: the log as JSON lines, filtered like GET /v1/events/stream; --follow keeps tailing. From the stores, or a service (--url).
import { parseArgs } from 'node:util';
import { LedgerClient } from '../client/index.js';
import type { EventStore, RecordedEvent } from '../events/eventStore.js';
import { knownEventTypeSet, type LifecycleEventFilter, matchesLifecycleFilter } from '../modules/eventFeed/lifecycleEventFilter.js';
import { lifecycleEventData } from '../modules/eventFeed/lifecycleEventMessage.js';
import { StreamSessionKeys } from '../modules/eventFeed/streamSessionKeys.js';
import { validSessionKey } from '../modules/conversations/conversationRequests.js';
import { withCliStores } from './cliStores.js';
import { commaList, wholeNumber } from './optionValues.js';
import { UsageError } from './usageError.js';

const PAGE = 500;

interface EventsOptions {
  filter: LifecycleEventFilter;
  stream?: string;
  from: number;
  limit: number;
  follow: boolean;
}

export async function eventsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      type: { type: 'string', multiple: true },
      'session-key': { type: 'string' },
      stream: { type: 'string' },
      tenant: { type: 'string' },
      from: { type: 'string' },
      limit: { type: 'string' },
      follow: { type: 'boolean', default: false },
      url: { type: 'string' },
      token: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const options: EventsOptions = {
    filter: {
      types: knownEventTypeSet(commaList(values.type)),
      sessionKey: values['session-key'] === undefined ? undefined : validSessionKey(values['session-key']),
      tenant: values.tenant,
    },
    stream: values.stream,
    from: values.from === undefined ? 0 : wholeNumber(values.from, '--from'),
    limit: values.limit === undefined ? Number.POSITIVE_INFINITY : wholeNumber(values.limit, '--limit'),
    follow: values.follow ?? false,
  };
  if (values.url !== undefined) return fromService(values.url, values.token ?? process.env.LEDGER_TOKEN, options);
  return withCliStores(({ infrastructure }) => fromStore(infrastructure.eventStore, options), []);
}

const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function fromStore(store: EventStore, options: EventsOptions): Promise<number> {
  const sessionKeys = new StreamSessionKeys(store);
  let printed = 0;
  const keep = async (event: RecordedEvent) =>
    (options.stream === undefined || event.streamName === options.stream) &&
    (await matchesLifecycleFilter(options.filter, event, (candidate) => sessionKeys.of(candidate)));

  let position = options.from;
  for (;;) {
    const page = await store.readAll({ fromPosition: position, maxCount: PAGE });
    for (const event of page) {
      position = event.position;
      if (!(await keep(event))) continue;
      print(lifecycleEventData(event));
      if (++printed >= options.limit) return 0;
    }
    if (page.length < PAGE) break;
  }
  if (!options.follow) return 0;

  // Tail from where the catch-up ended until interrupted (or the limit).
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const subscription = store.subscribe(
    async (event) => {
      if (printed >= options.limit || !(await keep(event))) return;
      print(lifecycleEventData(event));
      if (++printed >= options.limit) finish();
    },
    { fromPosition: position },
  );
  process.once('SIGINT', finish);
  process.once('SIGTERM', finish);
  await Promise.race([finished, subscription.done]);
  await subscription.stop();
  return 0;
}

async function fromService(url: string, token: string | undefined, options: EventsOptions): Promise<number> {
  // A stream from a service never says it has caught up: it ends at the limit or when interrupted.
  if (!options.follow && options.limit === Number.POSITIVE_INFINITY) throw new UsageError('with --url, give --follow or --limit');
  if (options.filter.tenant !== undefined) throw new UsageError('with --url, the token decides the tenant: drop --tenant');
  const client = new LedgerClient({ baseUrl: url, token });
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  let printed = 0;
  const events = client.events(
    { types: [...options.filter.types], sessionKey: options.filter.sessionKey, fromPosition: options.from },
    {
      signal: stop.signal,
      onReconnect: (attempt, reason) => process.stderr.write(`reconnecting (${attempt}): ${reason instanceof Error ? reason.message : String(reason)}\n`),
    },
  );
  for await (const event of events) {
    if (options.stream !== undefined && event.streamName !== options.stream) continue;
    print(event);
    if (++printed >= options.limit) break;
  }
  return 0;
}
