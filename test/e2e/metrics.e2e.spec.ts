// GET /metrics over real HTTP: the Prometheus text format, and the figures it reports after real requests, appends and conflicts.
import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { LedgerClient } from '../../src/client/index.js';
import type { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import { WrongExpectedRevisionError } from '../../src/events/eventStoreErrors.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { STATE_CACHE } from '../../src/events/boundedStateCache.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn, telegramSource } from '../support/sources.js';

const TOKEN = 'metrics-e2e-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with exactly these labels; 0 when there is none (a counter not yet incremented). */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

/** A strict reader of the text format: every line must be a HELP, a TYPE or a sample of a family declared above it. */
function parseExposition(text: string): Exposition {
  expect(text.endsWith('\n')).toBe(true);
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$/.exec(line);
    if (help) {
      helps.add(help[1]!);
      continue;
    }
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      expect(helps.has(type[1]!), `HELP before TYPE of ${type[1]}`).toBe(true);
      expect(types.has(type[1]!), `one TYPE line for ${type[1]}`).toBe(false);
      types.set(type[1]!, type[2]!);
      continue;
    }
    const sample = SAMPLE_LINE.exec(line);
    if (!sample) throw new Error(`not a line of the Prometheus text format: ${JSON.stringify(line)}`);
    const [, name, labelText = '', valueText] = sample as unknown as [string, string, string | undefined, string];
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    expect(types.get(family), `${name} belongs to a declared family`).toBeDefined();
    if (family !== name) expect(types.get(family)).toBe('histogram');
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const match = LABEL.exec(labelText);
      if (!match) throw new Error(`bad labels in ${JSON.stringify(line)}`);
      labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`bad value in ${JSON.stringify(line)}`);
    samples.push({ name, labels, value });
  }
  const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([key, value]) => a[key] === value);
  return {
    types,
    samples,
    value(name, labels = {}) {
      const found = samples.filter((sample) => sample.name === name && sameLabels(sample.labels, labels));
      expect(found.length, `${name} ${JSON.stringify(labels)} appears at most once`).toBeLessThanOrEqual(1);
      return found[0]?.value ?? 0;
    },
  };
}

forEachBackend(
  'metrics',
  (ledger) => {
    /** The typed client with the service's token. */
    let client: LedgerClient;
    let chat = 0;
    const scrape = async () => {
      const response = await fetch(`${ledger.service.url}/metrics`, { headers: auth });
      expect(response.status).toBe(200);
      return parseExposition(await response.text());
    };
    const newConversation = async () => {
      const resolved = await client.resolveSession({ source: telegramSource(`metrics-${ledger.backend}-${++chat}`) });
      expect(resolved.created).toBe(true);
      return resolved;
    };
    const turn = (sessionId: string) =>
      client.recordTurn(sessionId, {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
        usage: { inputTokens: 3, outputTokens: 2 },
      });

    beforeAll(() => {
      client = ledger.newClient({ token: TOKEN });
    });

    it('every counter family has a sample from the start, so rate() and alerts read 0 instead of no data', async () => {
      const fresh = await scrape();
      const counters = [...fresh.types].filter(([, type]) => type === 'counter').map(([name]) => name);
      expect(counters).toEqual(
        expect.arrayContaining([
          'ledger_http_requests_total',
          'ledger_http_errors_total',
          'ledger_tokens_total',
          'ledger_cost_usd_total',
          'ledger_job_fires_total',
          'ledger_job_runs_total',
        ]),
      );
      for (const name of counters) expect(fresh.samples.filter((sample) => sample.name === name).length, `${name} has a sample`).toBeGreaterThan(0);
      expect(fresh.value('ledger_http_requests_total', { method: '', route: '', status_class: '5xx' })).toBe(0);
      expect(fresh.value('ledger_http_errors_total', { code: 'INTERNAL_ERROR', status: '500' })).toBe(0);
      expect(fresh.value('ledger_job_fires_total')).toBe(0);
      expect(fresh.value('ledger_job_runs_total', { status: 'error' })).toBe(0);
      expect(fresh.value('ledger_cost_usd_total', { platform: '' })).toBe(0);
    });

    it('counts error answers by code and status, and tokens and cost by platform', async () => {
      const before = await scrape();
      expect((await refusalOf(client.getSession('20260101_000000_deadbeef'))).status).toBe(404);
      // The event stream's refusal comes before any event: asked raw.
      expect((await ledger.service.request('GET', '/v1/events/stream?types=Bogus', { headers: auth })).status).toBe(400);
      expect((await refusalOf(ledger.client.listSessions())).status).toBe(401);
      const { sessionId } = await newConversation();
      const discord = await client.resolveSession({ source: sourceOn('discord', `metrics-${ledger.backend}-usage`) });
      await client.recordTurn(sessionId, {
        messages: [{ role: 'user', content: 'hi' }],
        usage: { inputTokens: 10, outputTokens: 4, cacheReadTokens: 2, costUsd: 0.25 },
      });
      await client.recordTurn(discord.sessionId, {
        messages: [{ role: 'user', content: 'hi' }],
        usage: { inputTokens: 7, costUsd: 0.5 },
      });
      const after = await scrape();
      const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
      expect(delta('ledger_http_errors_total', { code: 'SESSION_NOT_FOUND', status: '404' })).toBe(1);
      expect(delta('ledger_http_errors_total', { code: 'UNKNOWN_EVENT_TYPE', status: '400' })).toBe(1);
      expect(delta('ledger_http_errors_total', { code: 'UNAUTHORIZED', status: '401' })).toBe(1);
      expect(delta('ledger_tokens_total', { platform: 'telegram', kind: 'input' })).toBe(10);
      expect(delta('ledger_tokens_total', { platform: 'telegram', kind: 'output' })).toBe(4);
      expect(delta('ledger_tokens_total', { platform: 'telegram', kind: 'cache_read' })).toBe(2);
      expect(delta('ledger_tokens_total', { platform: 'discord', kind: 'input' })).toBe(7);
      expect(delta('ledger_cost_usd_total', { platform: 'telegram' })).toBeCloseTo(0.25, 10);
      expect(delta('ledger_cost_usd_total', { platform: 'discord' })).toBeCloseTo(0.5, 10);
    });

    it('needs a token, and answers the Prometheus text format with every family declared and histograms well formed', async () => {
      // /metrics is no operation of the typed client: it is read raw, as Prometheus reads it.
      const anonymous = await ledger.service.request('GET', '/metrics');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHORIZED');

      const { sessionId } = await newConversation();
      await turn(sessionId);
      const response = await fetch(`${ledger.service.url}/metrics`, { headers: auth });
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const exposition = parseExposition(await response.text());
      for (const [name, type] of [
        ['ledger_http_requests_total', 'counter'],
        ['ledger_http_request_duration_seconds', 'histogram'],
        ['ledger_events_appended_total', 'counter'],
        ['ledger_append_conflicts_total', 'counter'],
        ['ledger_event_store_errors_total', 'counter'],
        ['ledger_event_store_append_duration_seconds', 'histogram'],
        ['ledger_job_fires_total', 'counter'],
        ['ledger_projection_lag_events', 'gauge'],
        ['ledger_projection_position', 'gauge'],
        ['ledger_projection_failing', 'gauge'],
        ['ledger_projection_parked_streams', 'gauge'],
        ['ledger_state_loads_total', 'counter'],
        ['ledger_state_cache_entries', 'gauge'],
        ['ledger_queue_messages', 'gauge'],
        ['ledger_queue_depth_max', 'gauge'],
        ['process_resident_memory_bytes', 'gauge'],
        ['nodejs_eventloop_lag_p99_seconds', 'gauge'],
      ]) {
        expect(exposition.types.get(name!), name).toBe(type);
      }
      // Buckets are cumulative and the +Inf bucket is the count.
      const buckets = exposition.samples.filter(
        (sample) => sample.name === 'ledger_http_request_duration_seconds_bucket' && sample.labels.route === '/v1/sessions/:id/turns',
      );
      expect(buckets.length).toBeGreaterThan(2);
      for (let index = 1; index < buckets.length; index++) expect(buckets[index]!.value).toBeGreaterThanOrEqual(buckets[index - 1]!.value);
      expect(buckets.at(-1)!.labels.le).toBe('+Inf');
      expect(buckets.at(-1)!.value).toBe(exposition.value('ledger_http_request_duration_seconds_count', { method: 'POST', route: '/v1/sessions/:id/turns' }));
      expect(exposition.value('ledger_http_request_duration_seconds_sum', { method: 'POST', route: '/v1/sessions/:id/turns' })).toBeGreaterThan(0);
    });

    it('counts requests by route template and status class, never by raw path', async () => {
      const before = await scrape();
      const { sessionId } = await newConversation();
      await turn(sessionId);
      await turn(sessionId);
      await client.getSession(sessionId);
      expect((await refusalOf(client.getSession('20200101_000000_deadbeef'))).status).toBe(404);
      expect((await ledger.service.request('GET', `/no/such/route/${sessionId}`, { headers: auth })).status).toBe(404);
      const after = await scrape();
      const delta = (labels: Record<string, string>) => after.value('ledger_http_requests_total', labels) - before.value('ledger_http_requests_total', labels);

      expect(delta({ method: 'POST', route: '/v1/sessions/resolve', status_class: '2xx' })).toBe(1);
      expect(delta({ method: 'POST', route: '/v1/sessions/:id/turns', status_class: '2xx' })).toBe(2);
      expect(delta({ method: 'GET', route: '/v1/sessions/:id', status_class: '2xx' })).toBe(1);
      expect(delta({ method: 'GET', route: '/v1/sessions/:id', status_class: '4xx' })).toBe(1);
      expect(delta({ method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(1);
      const turnsTimed = (exposition: Exposition) =>
        exposition.value('ledger_http_request_duration_seconds_count', { method: 'POST', route: '/v1/sessions/:id/turns' });
      expect(turnsTimed(after) - turnsTimed(before)).toBe(2);
      for (const sample of after.samples) for (const value of Object.values(sample.labels)) expect(value).not.toContain(sessionId);
    });

    it('counts appended events by category and type, conflicts, and event-store errors', async () => {
      const before = await scrape();
      const { sessionId } = await newConversation();
      await turn(sessionId);
      // A write at a revision the stream has left behind: the compare-and-set refusing, as when two requests race.
      const { eventStore } = ledger.service.infrastructure;
      await expect(eventStore.append(sessionStreamName(sessionId), [{ type: 'MetricsProbe', data: {} }], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      // An event id already stored in another stream: a caller bug the store refuses.
      const id = randomUUID();
      await eventStore.append(`metrics-${ledger.backend}-a`, [{ id, type: 'MetricsProbe', data: {} }], 'no_stream');
      await expect(eventStore.append(`metrics-${ledger.backend}-b`, [{ id, type: 'MetricsProbe', data: {} }], 'no_stream')).rejects.toMatchObject({
        code: 'DUPLICATE_EVENT_ID',
      });
      const after = await scrape();
      const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);

      expect(delta('ledger_events_appended_total', { category: 'conversation', type: 'ConversationOpened' })).toBe(1);
      expect(delta('ledger_events_appended_total', { category: 'session', type: 'SessionCreated' })).toBe(1);
      expect(delta('ledger_events_appended_total', { category: 'session', type: 'TurnRecorded' })).toBe(1);
      expect(delta('ledger_events_appended_total', { category: 'metrics', type: 'MetricsProbe' })).toBe(1);
      expect(delta('ledger_append_conflicts_total', { category: 'session' })).toBe(1);
      expect(delta('ledger_event_store_errors_total', { operation: 'append', kind: 'DUPLICATE_EVENT_ID' })).toBe(1);
      // Conflicts are not errors, and a stream that does not exist yet (every new conversation) is not one either.
      expect(delta('ledger_event_store_errors_total', { operation: 'append', kind: 'WRONG_EXPECTED_REVISION' })).toBe(0);
      expect(delta('ledger_event_store_errors_total', { operation: 'read_stream', kind: 'STREAM_NOT_FOUND' })).toBe(0);
      expect(delta('ledger_event_store_append_duration_seconds_count', { category: 'session' })).toBe(2);
    });

    it('counts job fires once per slot', async () => {
      const before = await scrape();
      const jobId = `metrics-${ledger.backend}`;
      await client.createJob({ id: jobId, schedule: 'every 1m', prompt: 'tick' });
      const fired = await client.fireJob(jobId, {});
      expect((await refusalOf(client.fireJob(jobId, { slot: fired.slot }))).status).toBe(409);
      const after = await scrape();
      expect(after.value('ledger_job_fires_total') - before.value('ledger_job_fires_total')).toBe(1);
      const firedEvents = (exposition: Exposition) => exposition.value('ledger_events_appended_total', { category: 'job', type: 'JobFired' });
      expect(firedEvents(after) - firedEvents(before)).toBe(1);
    });

    it('reports state loads warm, resumed and cold, the cache size, and queue depths', async () => {
      const { sessionId } = await newConversation();
      await turn(sessionId);
      const before = await scrape();
      const loads = (exposition: Exposition, kind: string) => exposition.value('ledger_state_loads_total', { kind });
      await client.getSession(sessionId);
      await client.getSession(sessionId);
      ledger.service.app.get<symbol, BoundedStateCache>(STATE_CACHE).delete(sessionStreamName(sessionId));
      await client.getSession(sessionId);
      expect((await refusalOf(client.getSession('20200101_000000_cafebabe'))).status).toBe(404);
      const after = await scrape();
      expect(loads(after, 'warm') - loads(before, 'warm')).toBe(2);
      expect(loads(after, 'resumed') - loads(before, 'resumed')).toBe(1);
      expect(loads(after, 'cold') - loads(before, 'cold')).toBe(1);
      expect(after.value('ledger_state_cache_entries')).toBeGreaterThan(0);
      expect(after.value('ledger_state_cache_bytes')).toBeGreaterThan(0);

      const enqueue = (key: string, text: string) => client.enqueue(key, { message: { text }, mode: 'queue' });
      const busy = await newConversation();
      const other = await newConversation();
      for (const text of ['one', 'two', 'three']) await enqueue(busy.sessionKey, text);
      await enqueue(other.sessionKey, 'alone');
      let exposition = await scrape();
      expect(exposition.value('ledger_queue_messages')).toBe(4);
      expect(exposition.value('ledger_queue_conversations')).toBe(2);
      expect(exposition.value('ledger_queue_depth_max')).toBe(3);

      // 200 with a message, not 204 with none.
      expect(await client.nextQueued(busy.sessionKey)).not.toBeNull();
      expect(await client.nextQueued(other.sessionKey)).not.toBeNull();
      exposition = await scrape();
      expect(exposition.value('ledger_queue_messages')).toBe(2);
      expect(exposition.value('ledger_queue_conversations')).toBe(1);
      expect(exposition.value('ledger_queue_depth_max')).toBe(2);
    });

    it('reports process figures', async () => {
      const exposition = await scrape();
      expect(exposition.value('process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
      expect(exposition.value('nodejs_heap_used_bytes')).toBeGreaterThan(0);
      expect(exposition.value('process_cpu_seconds_total')).toBeGreaterThan(0);
      const started = exposition.value('process_start_time_seconds');
      expect(started).toBeLessThanOrEqual(Date.now() / 1000 + 1);
      expect(started).toBeGreaterThan(Date.now() / 1000 - 24 * 3600);
      for (const name of ['nodejs_eventloop_lag_mean_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds'])
        expect(exposition.value(name)).toBeGreaterThanOrEqual(0);
    });

    // Last: it stops the projections of this app.
    it('reports each projection caught up, then the lag while it is stopped', async () => {
      const { service } = ledger;
      const runner = service.infrastructure.projections;
      const written = await service.lastPosition();
      expect(await runner.waitForPosition(runner.projectionNames, written, 20_000)).toBe(true);
      await expect
        .poll(
          async () => {
            const exposition = await scrape();
            return runner.projectionNames.map((projection) => ({
              projection,
              lag: exposition.value('ledger_projection_lag_events', { projection }),
              caughtUp: exposition.value('ledger_projection_position', { projection }) >= written,
              failing: exposition.value('ledger_projection_failing', { projection }),
              owned: exposition.value('ledger_projection_owned', { projection }),
              live: exposition.value('ledger_projection_state', { projection, state: 'live' }),
            }));
          },
          { timeout: 15_000 },
        )
        .toEqual(runner.projectionNames.map((projection) => ({ projection, lag: 0, caughtUp: true, failing: 0, owned: 1, live: 1 })));
      expect((await scrape()).value('ledger_event_store_head_position')).toBeGreaterThanOrEqual(written);

      await runner.stop();
      await service.infrastructure.eventStore.append(
        `metrics-lag-${ledger.backend}`,
        [1, 2, 3].map(() => ({ type: 'MetricsProbe', data: {} })),
        'no_stream',
      );
      await expect
        .poll(
          async () => {
            const exposition = await scrape();
            return runner.projectionNames.map((projection) => exposition.value('ledger_projection_lag_events', { projection }));
          },
          { timeout: 15_000 },
        )
        .toEqual(runner.projectionNames.map(() => 3));
    });
  },
  // No ticker and no watchdog sweep: nothing but the test appends or loads, so the deltas are exact.
  { env: { API_TOKEN: TOKEN, JOB_TICK_INTERVAL_MS: '0', RUNTIME_WATCHDOG_INTERVAL_MS: '0' } },
);
