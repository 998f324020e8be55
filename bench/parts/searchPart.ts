// Transcript search: a query's p50 and p99 against a sequential ILIKE scan of the same table in the same run, and the
// search projection's indexing rate against a plain transcript projection's (the same messages, no words index).
import { performance } from 'node:perf_hooks';
import type { EntityManager } from 'typeorm';
import { quoteIdentifier } from '../../src/database/migrate.js';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { createLogger } from '../../src/logging/logger.js';
import { searchMessages } from '../../src/modules/search/searchQueries.js';
import { parseSearch } from '../../src/modules/search/searchQuery.js';
import type { Projection } from '../../src/projections/projection.js';
import { SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import { searchableText } from '../../src/projections/transcriptSearch/searchTerms.js';
import { transcriptSearchProjection } from '../../src/projections/transcriptSearch/transcriptSearchProjection.js';
import type { BenchContext } from '../benchContext.js';
import { atLeastShare, atMostTimes, type Figure } from '../report.js';
import { lastWrittenPosition, PROJECTION_BATCH_SIZE } from '../seeding/projectionCatchUp.js';
import { createServiceStorage, type OpenedStorage, type ServiceBackend } from '../service/serviceStorage.js';

const TURNS_PER_SESSION = 25;
const MESSAGES_PER_TURN = 4;
const WORDS_PER_MESSAGE = 14;
const VOCABULARY = 5_000;
const QUERIES = 40;
const RUNS_PER_QUERY = 5;
const SCANS = 8;
const TIMEOUT_MS = 3 * 3_600_000;
const CHINESE_WORDS = ['决定', '数据库', '迁移', '会议', '预算', '上周', '客户', '部署', '测试', '问题', '方案', '时间', '服务器', '文档', '版本', '用户'];

export async function searchPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend, context.options.searchMessages)));
  return figures;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend, messages: number): Promise<Figure[]> {
  const storage = await createServiceStorage(backend, context.options.postgresUrl, 'search');
  try {
    const opened = await storage.open({ poolSize: 4 });
    try {
      const random = seededRandom(17);
      const sessions = Math.ceil(messages / (TURNS_PER_SESSION * MESSAGES_PER_TURN));
      const written = sessions * TURNS_PER_SESSION * MESSAGES_PER_TURN;
      context.log(`search, ${backend}: writing ${written.toLocaleString('en-US')} messages in ${sessions.toLocaleString('en-US')} sessions…`);
      for (let session = 0; session < sessions; session++) {
        await opened.store.append(`session-bench-${session}`, sessionEvents(session, random), 'no_stream');
        if ((session + 1) % 1_000 === 0)
          context.log(`search, ${backend}: ${((session + 1) * TURNS_PER_SESSION * MESSAGES_PER_TURN).toLocaleString('en-US')} messages written`);
      }
      const head = await lastWrittenPosition(opened);

      context.log(`search, ${backend}: the plain transcript projection from 0…`);
      const plainSeconds = await projectToHead(opened, plainTranscriptProjection, head);
      context.log(`search, ${backend}: the transcript-search projection from 0…`);
      const searchSeconds = await projectToHead(opened, transcriptSearchProjection, head);
      const plainRate = written / plainSeconds;
      const searchRate = written / searchSeconds;

      const readModels = await openReadModelDatabase(opened.pool, opened.readModelSchema, [transcriptSearchProjection]);
      try {
        const queries = searchQueries(random);
        context.log(`search, ${backend}: ${queries.length} queries × ${RUNS_PER_QUERY} through the index…`);
        const searched: number[] = [];
        let hits = 0;
        for (const query of queries) {
          const { websearch } = parseSearch(query);
          for (let run = 0; run < RUNS_PER_QUERY; run++) {
            const started = performance.now();
            const found = await searchMessages(
              readModels,
              { tenant: undefined, websearch, includeDeleted: false, includeRolledBack: false },
              { limit: 21, offset: 0 },
            );
            searched.push(performance.now() - started);
            if (run === 0) hits += found.length;
          }
        }
        context.log(`search, ${backend}: ${SCANS} sequential ILIKE scans of the same table…`);
        const table = `${quoteIdentifier(opened.readModelSchema)}.search_messages`;
        const scanned: number[] = [];
        for (const query of queries.slice(0, SCANS)) {
          const started = performance.now();
          await readModels.query(
            `SELECT session_id, message_index, body FROM ${table} WHERE tenant = '' AND NOT deleted AND body ILIKE $1 ORDER BY at DESC LIMIT 21`,
            [`%${query.split(' ')[0]}%`],
          );
          scanned.push(performance.now() - started);
        }
        const search = { p50: percentile(searched, 0.5), p99: percentile(searched, 0.99) };
        const scan = { p50: percentile(scanned, 0.5), p99: percentile(scanned, 0.99) };
        const size = `${written.toLocaleString('en-US')} messages`;
        return [
          {
            part: 'search',
            backend,
            name: `search p50, ${size}`,
            value: search.p50,
            unit: 'ms',
            baseline: { name: 'sequential ILIKE scan p50', value: scan.p50 },
            ratio: search.p50 / scan.p50,
            ratioStyle: 'times',
            verdict: atMostTimes(search.p50 / scan.p50, 0.01, 'the scan'),
            note: `${queries.length} queries × ${RUNS_PER_QUERY}, ${(hits / queries.length).toFixed(1)} hits each (page of 20); scan p99 ${scan.p99.toFixed(0)} ms`,
          },
          {
            part: 'search',
            backend,
            name: `search p99, ${size}`,
            value: search.p99,
            unit: 'ms',
            baseline: { name: 'sequential ILIKE scan p99', value: scan.p99 },
            ratio: search.p99 / scan.p99,
            ratioStyle: 'times',
          },
          {
            part: 'search',
            backend,
            name: `transcript-search indexing, ${size}`,
            value: searchRate,
            unit: 'msg/s',
            baseline: { name: 'plain transcript projection', value: plainRate },
            ratio: searchRate / plainRate,
            verdict: atLeastShare(searchRate / plainRate, 0.5, 'the plain projection'),
            note: `${searchSeconds.toFixed(0)} s vs ${plainSeconds.toFixed(0)} s, batches of ${PROJECTION_BATCH_SIZE}`,
          },
        ];
      } finally {
        await readModels.destroy();
      }
    } finally {
      await opened.close();
    }
  } finally {
    await storage.dispose();
  }
}

/** One projection alone, from position 0 to `head`: seconds taken. */
async function projectToHead(opened: OpenedStorage, projection: Projection, head: number): Promise<number> {
  const readModels = await openReadModelDatabase(opened.pool, opened.readModelSchema, [projection]);
  if (projection === plainTranscriptProjection) await readModels.query(plainTableSql(opened.readModelSchema));
  const runner = new ProjectionRunner({
    store: opened.store,
    dataSource: readModels,
    schema: opened.readModelSchema,
    projections: [projection],
    lease: new SoleOwnerLease(),
    logger: createLogger('silent'),
    batchSize: PROJECTION_BATCH_SIZE,
  });
  const started = performance.now();
  await runner.start();
  try {
    if (!(await runner.waitForPosition([projection.name], head, TIMEOUT_MS))) throw new Error(`${projection.name} did not reach the head`);
    return (performance.now() - started) / 1000;
  } finally {
    await runner.stop();
    await readModels.destroy();
  }
}

const plainTableSql = (schema: string) => `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(schema)}.bench_plain_transcript (
  session_id text NOT NULL, message_index integer NOT NULL, turn_index integer NOT NULL, role text NOT NULL, at timestamptz NOT NULL,
  body text NOT NULL, PRIMARY KEY (session_id, message_index))`;

/** The baseline: every message's text as a row, written the way the search projection writes its rows, without the words. */
const plainTranscriptProjection: Projection = {
  name: 'bench-plain-transcript',
  tables: ['bench_plain_transcript'],
  entities: [],
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const rows: object[] = [];
    for (const event of events) {
      if (event.type !== 'TurnRecorded') continue;
      const data = event.data as { messages: Array<{ index: number; turnIndex: number; role: string; at: string; content: string }> };
      for (const message of data.messages) {
        rows.push({
          session_id: event.streamName,
          message_index: message.index,
          turn_index: message.turnIndex,
          role: message.role,
          at: message.at,
          body: searchableText(message.content),
        });
      }
    }
    if (rows.length === 0) return;
    const { schema } = manager.connection.options as { schema: string };
    for (let start = 0; start < rows.length; start += 1_000) {
      await manager.query(
        `INSERT INTO ${quoteIdentifier(schema)}.bench_plain_transcript (session_id, message_index, turn_index, role, at, body)
         SELECT session_id, message_index, turn_index, role, at, body FROM json_to_recordset($1::json)
           AS r(session_id text, message_index integer, turn_index integer, role text, at timestamptz, body text)`,
        [JSON.stringify(rows.slice(start, start + 1_000))],
      );
    }
  },
};

function sessionEvents(session: number, random: () => number) {
  const at = (turn: number) => new Date(Date.UTC(2026, 0, 1) + session * 60_000 + turn * 1_000).toISOString();
  const events = [
    {
      type: 'SessionCreated',
      data: {
        sessionId: `bench-${session}`,
        sessionKey: `agent:main:bench:dm:${session}`,
        origin: { platform: 'bench', chatType: 'dm', chatId: String(session) },
        reason: 'new',
        at: at(0),
      },
    },
  ];
  for (let turn = 1; turn <= TURNS_PER_SESSION; turn++) {
    const messages = Array.from({ length: MESSAGES_PER_TURN }, (_, offset) => ({
      role: offset % 2 === 0 ? 'user' : 'assistant',
      content: random() < 0.1 ? chineseSentence(random) : sentence(random),
      index: (turn - 1) * MESSAGES_PER_TURN + offset,
      turnIndex: turn,
      at: at(turn),
    }));
    events.push({
      type: 'TurnRecorded',
      data: {
        turnIndex: turn,
        status: 'completed',
        messages,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 },
        at: at(turn),
      },
    } as never);
  }
  return events;
}

/** Words by a Zipf law (rank r drawn with weight 1/r), as words of real text are: a few very common, most rare. */
const zipf = (() => {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= VOCABULARY; rank++) cumulative.push((total += 1 / rank));
  return (random: () => number) => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
})();

const wordOf = (rank: number) => `w${rank.toString(36)}x`;
const sentence = (random: () => number) => Array.from({ length: WORDS_PER_MESSAGE }, () => wordOf(zipf(random))).join(' ');
const chineseSentence = (random: () => number) =>
  Array.from({ length: 6 }, () => CHINESE_WORDS[Math.floor(random() * CHINESE_WORDS.length)]).join('') + `，${wordOf(zipf(random))}。`;

/** Words drawn evenly from the vocabulary (most of them rare), some pairs, some Chinese words. */
function searchQueries(random: () => number): string[] {
  const word = () => wordOf(Math.floor(random() * VOCABULARY));
  return Array.from({ length: QUERIES }, (_, index) =>
    index % 8 === 7 ? CHINESE_WORDS[index % CHINESE_WORDS.length]! : index % 8 === 6 ? `${word()} ${wordOf(zipf(random))}` : word(),
  );
}

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
}

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
