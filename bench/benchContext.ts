// What every bench part gets: the parsed options, the backends to cover, progress output, and stores seeded once per run.
import { parseArgs } from 'node:util';
import type { SeededConversation } from './seeding/seedConversations.js';
import { eventsPerConversation, seedConversations } from './seeding/seedConversations.js';
import { loadAverage } from './machine.js';
import { BenchService } from './service/benchService.js';
import { createServiceStorage, type ServiceBackend, type ServiceStorage } from './service/serviceStorage.js';

/** The five measurements; its third (growth) is two parts here: conversations in the store, and one session's length. */
export const PART_NAMES = ['store', 'http', 'growth', 'sessions', 'rebuild', 'memory', 'streams', 'search', 'items', 'peers'] as const;
export type PartName = (typeof PART_NAMES)[number];
/** What `npm run bench` runs with no part named: growth (a million conversations) and memory (a soak) run when named. */
export const DEFAULT_PARTS: readonly PartName[] = ['store', 'http', 'sessions', 'rebuild', 'streams', 'search', 'items', 'peers'];

export interface BenchOptions {
  parts: PartName[];
  backends: ServiceBackend[];
  postgresUrl?: string;
  /** HTTP load generator connections. */
  connections: number;
  /** Seconds per timed HTTP scenario. */
  durationSeconds: number;
  /** Seconds per figure of the peers part (issue #33's run took 8; `--duration` sets both). */
  peerDurationSeconds: number;
  /** Conversations in the store for the HTTP figures and the small end of the growth comparison. */
  smallConversations: number;
  /** The large end of the growth comparison. */
  largeConversations: number;
  /** The store of the memory figure. */
  memoryConversations: number;
  /** Conversations a growth scenario addresses, the same at both ends, so only the store's size differs. */
  workingSet: number;
  /** Events in the rebuild's log, per backend. */
  rebuildEvents: Record<ServiceBackend, number>;
  soakMinutes: number;
  /** Idle event streams held open at once by the streams part. */
  streams: number;
  /** Messages in the search part's transcripts. */
  searchMessages: number;
  writeResults: boolean;
}

const USAGE = `npm run bench -- [store] [http] [growth] [sessions] [rebuild] [memory] [streams] [search] [items] [peers]   (none: all but growth and memory)
  --backends pglite,postgres   (default: pglite, and postgres when BENCH_DATABASE_URL is set; the peers part's libraries run in the postgres pass)
  --duration <s>               seconds per timed HTTP scenario (10; per figure of the peers part, 8)
  --connections <n>            load generator connections, and the raw baseline's clients (16)
  --conversations <n>          conversations behind the HTTP figures and the small end of growth (1000)
  --large-conversations <n>    the large end of growth (1000000)
  --memory-conversations <n>   the memory figure's store (100000)
  --rebuild-events <n>         events in the rebuild's log (1000000 on PostgreSQL, 200000 on PGlite)
  --soak-minutes <m>           memory soak with the cache evicting (2; the documented figure uses 10)
  --streams <n>                idle event streams held open by the streams part (200)
  --search-messages <n>        messages in the search part's transcripts (1000000; fewer for a quick run)
  --write-results              also write bench/results/run-<time>.json`;

export function parseBenchOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      backends: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      conversations: { type: 'string' },
      'large-conversations': { type: 'string' },
      'memory-conversations': { type: 'string' },
      'working-set': { type: 'string' },
      'rebuild-events': { type: 'string' },
      'soak-minutes': { type: 'string' },
      streams: { type: 'string' },
      'search-messages': { type: 'string' },
      'write-results': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const unknown = positionals.filter((part) => !(PART_NAMES as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`unknown bench part ${unknown.join(', ')}\n${USAGE}`);
  const postgresUrl = env.BENCH_DATABASE_URL || undefined;
  const backends = (values.backends?.split(',') ?? ['pglite', ...(postgresUrl ? ['postgres'] : [])]).map((name) => name.trim());
  for (const backend of backends) {
    if (backend !== 'pglite' && backend !== 'postgres') throw new Error(`unknown backend ${backend}: pglite or postgres`);
    if (backend === 'postgres' && !postgresUrl) throw new Error('the postgres backend needs BENCH_DATABASE_URL=postgres://…');
  }
  const number = (value: string | undefined, fallback: number, name: string) => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number`);
    return parsed;
  };
  const rebuildEvents = values['rebuild-events'] ? number(values['rebuild-events'], 0, 'rebuild-events') : undefined;
  return {
    parts: positionals.length > 0 ? (positionals as PartName[]) : [...DEFAULT_PARTS],
    backends: backends as ServiceBackend[],
    postgresUrl,
    connections: number(values.connections, 16, 'connections'),
    durationSeconds: number(values.duration, 10, 'duration'),
    peerDurationSeconds: number(values.duration, 8, 'duration'),
    smallConversations: number(values.conversations, 1_000, 'conversations'),
    largeConversations: number(values['large-conversations'], 1_000_000, 'large-conversations'),
    memoryConversations: number(values['memory-conversations'], 100_000, 'memory-conversations'),
    workingSet: number(values['working-set'], 1_000, 'working-set'),
    rebuildEvents: { postgres: rebuildEvents ?? 1_000_000, pglite: rebuildEvents ?? 200_000 },
    soakMinutes: number(values['soak-minutes'], 2, 'soak-minutes'),
    streams: number(values.streams, 200, 'streams'),
    searchMessages: number(values['search-messages'], 1_000_000, 'search-messages'),
    writeResults: values['write-results'] ?? env.BENCH_WRITE_RESULTS === '1',
  };
}

export interface SeededStorage {
  storage: ServiceStorage;
  conversations: SeededConversation[];
  chatPrefix: string;
  events: number;
  /** How the service projected the seeded log at its first start: seconds from its start to every projection live. */
  projection: { seconds: number; eventsPerSecond: number; load: { start: string; end: string } };
}

/** Seeded sessions have this many turns (each an automatic checkpoint), so rollbacks have somewhere to go. */
export const SEEDED_TURNS = 1;

export class BenchContext {
  private readonly seeded = new Map<string, Promise<SeededStorage>>();

  constructor(readonly options: BenchOptions) {}

  log(message: string): void {
    console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
  }

  /**
   * A storage holding `conversations` seeded conversations with their read models caught up, created once per run
   * and backend: the growth and memory parts share the 100,000-conversation store instead of seeding it twice.
   * Closed (not disposed) on return.
   */
  seededStorage(backend: ServiceBackend, conversations: number, use: 'http' | 'growth' | 'growth, after'): Promise<SeededStorage> {
    // The HTTP part writes to its store; growth compares stores treated alike, so it has its own, and a second of the
    // small end's size to measure after the large end on the state the first had.
    const key = `${backend}:${conversations}:${use}`;
    let seeded = this.seeded.get(key);
    if (!seeded) {
      seeded = this.seed(backend, conversations);
      this.seeded.set(key, seeded);
    }
    return seeded;
  }

  private async seed(backend: ServiceBackend, count: number): Promise<SeededStorage> {
    const storage = await createServiceStorage(backend, this.options.postgresUrl, `c${count}`);
    const chatPrefix = `seed${count}`;
    const opened = await storage.open();
    const started = Date.now();
    let seeded = false;
    let closed = false;
    try {
      this.log(`${backend}: seeding ${count.toLocaleString('en-US')} conversations through the event store…`);
      const conversations = await seedConversations(opened.store, {
        chatPrefix,
        conversations: count,
        turnsPerSession: SEEDED_TURNS,
        // 250 conversations (1,000 events) per transaction: at load 5-12, 3,100-5,900 conversations/s on PostgreSQL
        // (4 writers) where 16 writers of one conversation each managed 650, and 382/s on PGlite where it managed 76.
        writers: backend === 'postgres' ? 4 : 1,
        conversationsPerAppend: 250,
        onProgress: (done, events) => {
          if (done % 20_000 === 0) this.log(`${backend}: ${done.toLocaleString('en-US')} conversations, ${events.toLocaleString('en-US')} events`);
        },
      });
      const events = count * eventsPerConversation(SEEDED_TURNS);
      this.log(
        `${backend}: seeded ${count.toLocaleString('en-US')} conversations (${events.toLocaleString('en-US')} events) in ${((Date.now() - started) / 1000).toFixed(0)} s; projecting them…`,
      );
      // Projected by the built service itself, as an operator's would after a bulk import or downtime (its own
      // settings, batch sizes and wake-ups), on a store nobody else touches: the time is what a projector far behind
      // the head takes to catch up. Closed first: PGlite lets one process at a time open the folder.
      await opened.close();
      closed = true;
      const loadStart = loadAverage();
      const projecting = Date.now();
      const service = await BenchService.start(storage.env);
      try {
        await service.waitForProjections(4 * 3_600_000, (lag) =>
          this.log(`${backend}, ${count.toLocaleString('en-US')} conversations: projections ${lag.toLocaleString('en-US')} events behind…`),
        );
      } finally {
        await service.stop();
      }
      const seconds = (Date.now() - projecting) / 1000;
      const projection = { seconds, eventsPerSecond: events / seconds, load: { start: loadStart, end: loadAverage() } };
      this.log(
        `${backend}: the service projected ${events.toLocaleString('en-US')} events in ${seconds.toFixed(0)} s (${projection.eventsPerSecond.toFixed(0)} events/s, load ${projection.load.start} → ${projection.load.end})`,
      );
      seeded = true;
      return { storage, conversations, chatPrefix, events, projection };
    } finally {
      if (!closed) await opened.close();
      if (!seeded) await storage.dispose();
    }
  }

  async dispose(): Promise<void> {
    for (const seeded of this.seeded.values()) {
      const { storage } = await seeded.catch(() => ({ storage: undefined }));
      await storage?.dispose();
    }
  }
}
