// The service's metric set: one per opened infrastructure (tests run several apps in one process), exposed at GET /metrics.
import type { BoundedStateCache, StateCache } from '../events/boundedStateCache.js';
import type { EventStore } from '../events/eventStore.js';
import type { LogHorizonProbe } from '../events/postgres/logHorizon.js';
import type { ProjectionRunner } from '../projections/projectionRunner.js';
import { ConversationQueueDepths, QueueWatchingStateCache } from './conversationQueueDepths.js';
import { MeteredEventStore } from './meteredEventStore.js';
import { MetricsRegistry } from './metricsRegistry.js';
import { type ProcessMetrics, registerProcessMetrics } from './processMetrics.js';

const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write'] as const;
/** The stream categories the ledger writes (conversation-, session-, runtime-, job-, gateway- streams). */
const STREAM_CATEGORIES = ['conversation', 'session', 'runtime', 'job', 'gateway'];
/** The codes an alert watches, present at 0 from the start; every other code appears with its first answer. */
const STANDING_ERROR_CODES: Array<[string, string]> = [
  ['INTERNAL_ERROR', '500'],
  ['DATABASE_UNAVAILABLE', '503'],
  ['EVENT_STORE_UNAVAILABLE', '503'],
  ['PROJECTION_NOT_CAUGHT_UP', '503'],
  ['VALIDATION_FAILED', '400'],
  ['UNAUTHORIZED', '401'],
  ['QUEUE_FULL', '429'],
];

const REQUEST_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const APPEND_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class LedgerMetrics {
  readonly registry = new MetricsRegistry();

  readonly httpRequests = this.registry.counter('ledger_http_requests_total', 'HTTP requests by method, route template and status class', [
    'method',
    'route',
    'status_class',
  ]);
  readonly httpDuration = this.registry.histogram(
    'ledger_http_request_duration_seconds',
    'HTTP request duration by method and route template',
    ['method', 'route'],
    REQUEST_SECONDS,
  );

  readonly eventsAppended = this.registry.counter('ledger_events_appended_total', 'Events appended by this instance, by stream category and event type', [
    'category',
    'type',
  ]);
  readonly appendDuration = this.registry.histogram(
    'ledger_event_store_append_duration_seconds',
    'Duration of successful appends, by stream category',
    ['category'],
    APPEND_SECONDS,
  );
  readonly appendConflicts = this.registry.counter(
    'ledger_append_conflicts_total',
    'Appends refused because the stream had moved on (wrong expected revision); the command reloads and decides again',
    ['category'],
  );
  readonly eventStoreErrors = this.registry.counter('ledger_event_store_errors_total', 'Event-store operations that failed, by operation and error kind', [
    'operation',
    'kind',
  ]);
  readonly jobFires = this.registry.counter('ledger_job_fires_total', 'Job slots fired by this instance (JobFired appended)');
  readonly jobSchedulerFallback = this.registry.gauge(
    'ledger_job_scheduler_fallback',
    '1 while the built-in ticker stands in for the external job scheduler (JOBS_SCHEDULER_URL), which does not answer',
  );
  readonly jobSchedulerCalls = this.registry.counter(
    'ledger_job_scheduler_calls_total',
    'Calls to the external job scheduler, by call (register, cancel) and outcome',
    ['call', 'outcome'],
  );
  readonly jobRuns = this.registry.counter('ledger_job_runs_total', 'Job runs reported to this instance, by outcome (ok, error, skipped)', ['status']);
  readonly httpErrors = this.registry.counter('ledger_http_errors_total', 'Error answers by error code (the code in the body) and HTTP status', [
    'code',
    'status',
  ]);
  readonly tokens = this.registry.counter(
    'ledger_tokens_total',
    'Tokens recorded in turns through this instance, by platform and kind (input, output, cache_read, cache_write)',
    ['platform', 'kind'],
  );
  readonly costUsd = this.registry.counter('ledger_cost_usd_total', 'Estimated cost in USD recorded in turns through this instance, by platform', ['platform']);

  private readonly projectionPosition = this.registry.gauge('ledger_projection_position', 'Global position up to which the projection has applied the log', [
    'projection',
  ]);
  private readonly projectionLag = this.registry.gauge('ledger_projection_lag_events', 'Events the projection has yet to apply (counted up to 10,000)', [
    'projection',
  ]);
  private readonly projectionFailing = this.registry.gauge(
    'ledger_projection_failing',
    '1 while the projection is stopped at an event it cannot apply (it retries with backoff)',
    ['projection'],
  );
  private readonly projectionParked = this.registry.gauge(
    'ledger_projection_parked_streams',
    'Streams the projection went on without (an event kept failing on its data); stale until a rebuild: alert on > 0',
    ['projection'],
  );
  private readonly projectionOwned = this.registry.gauge('ledger_projection_owned', '1 when this instance runs the projection (holds its lease)', [
    'projection',
  ]);
  private readonly projectionState = this.registry.gauge('ledger_projection_state', "The projection's state: 1 for the current one", ['projection', 'state']);
  private readonly headPosition = this.registry.gauge('ledger_event_store_head_position', 'Position of the newest event a subscriber may read');
  private readonly horizonHeld = this.registry.gauge(
    'ledger_event_log_horizon_held_seconds',
    'Seconds the oldest transaction running in the log\'s PostgreSQL database has been open: readers of the log wait for it (pid "" for a prepared one)',
    ['pid', 'database'],
  );

  private readonly cacheEntries = this.registry.gauge('ledger_state_cache_entries', 'Folded stream states held in memory');
  private readonly cacheBytes = this.registry.gauge('ledger_state_cache_bytes', 'Approximate size of those states (JSON length)');
  private readonly cachePinned = this.registry.gauge('ledger_state_cache_pinned_entries', 'States kept against eviction (a turn in flight)');
  private readonly cacheLoads = this.registry.counter(
    'ledger_state_loads_total',
    'State loads by how they were served: warm (cache), resumed (rehydrated from the store), cold (new stream)',
    ['kind'],
  );
  private readonly cacheEvictions = this.registry.counter(
    'ledger_state_cache_evictions_total',
    'States dropped by reason: lru (over budget), idle (idle reclaim), too_large (alone over the byte budget)',
    ['reason'],
  );

  private readonly queueMessages = this.registry.gauge(
    'ledger_queue_messages',
    'Messages waiting in conversation queues, as this instance last saw each conversation',
  );
  private readonly queueConversations = this.registry.gauge(
    'ledger_queue_conversations',
    'Conversations with at least one message waiting, as this instance last saw them',
  );
  private readonly queueDepthMax = this.registry.gauge('ledger_queue_depth_max', 'The deepest conversation queue, as this instance last saw it');

  private readonly queueDepths = new ConversationQueueDepths();
  private readonly process: ProcessMetrics;

  constructor() {
    this.process = registerProcessMetrics(this.registry);
    this.zeroCounters();
    this.registry.onCollect('queues', () => {
      const totals = this.queueDepths.totals();
      this.queueMessages.set({}, totals.messages);
      this.queueConversations.set({}, totals.conversations);
      this.queueDepthMax.set({}, totals.max);
    });
  }

  /** Every counter family has a sample from the start: alerts on `rate()` or `increase()` then read 0, not "no data". */
  private zeroCounters(): void {
    for (const statusClass of ['2xx', '4xx', '5xx']) this.httpRequests.zero({ method: '', route: '', status_class: statusClass });
    for (const [code, status] of STANDING_ERROR_CODES) this.httpErrors.zero({ code, status });
    for (const category of STREAM_CATEGORIES) {
      this.eventsAppended.zero({ category, type: '' });
      this.appendConflicts.zero({ category });
    }
    for (const operation of ['append', 'read_stream', 'read_all']) this.eventStoreErrors.zero({ operation, kind: '' });
    for (const status of ['ok', 'error', 'skipped']) this.jobRuns.zero({ status });
    for (const call of ['register', 'cancel']) for (const outcome of ['ok', 'failed']) this.jobSchedulerCalls.zero({ call, outcome });
    for (const kind of TOKEN_KINDS) this.tokens.zero({ platform: '', kind });
    this.costUsd.zero({ platform: '' });
    for (const kind of ['warm', 'resumed', 'cold']) this.cacheLoads.zero({ kind });
    for (const reason of ['lru', 'idle', 'too_large']) this.cacheEvictions.zero({ reason });
  }

  /** A recorded turn's usage, under the platform of the session's origin. */
  countUsage(
    platform: string | undefined,
    usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; costUsd: number },
  ): void {
    const label = platform ?? 'unknown';
    const byKind: Record<(typeof TOKEN_KINDS)[number], number> = {
      input: usage.inputTokens,
      output: usage.outputTokens,
      cache_read: usage.cacheReadTokens,
      cache_write: usage.cacheWriteTokens,
    };
    for (const kind of TOKEN_KINDS) if (byKind[kind] > 0) this.tokens.inc({ platform: label, kind }, byKind[kind]);
    if (usage.costUsd > 0) this.costUsd.inc({ platform: label }, usage.costUsd);
  }

  /** The store every part of the service uses, metered. */
  meterEventStore(store: EventStore): EventStore {
    return new MeteredEventStore(store, this);
  }

  /** Reports projection positions, lag and state at each scrape (from the checkpoint table, so standby instances report too). */
  watchProjections(runner: ProjectionRunner): void {
    this.registry.onCollect('projections', async () => {
      const statuses = await runner.statuses();
      this.projectionState.clear();
      for (const status of statuses) {
        const projection = status.name;
        this.projectionPosition.set({ projection }, status.position);
        this.projectionLag.set({ projection }, status.lagEvents);
        this.projectionFailing.set({ projection }, status.state === 'failed' ? 1 : 0);
        this.projectionParked.set({ projection }, status.parkedStreams.length);
        this.projectionOwned.set({ projection }, status.ownedHere ? 1 : 0);
        this.projectionState.set({ projection, state: status.state }, 1);
        this.headPosition.set({}, status.headPosition);
      }
    });
  }

  /** Names the transaction holding the log's readers back, at each scrape; no series while none runs. */
  watchLogHorizon(probe: LogHorizonProbe): void {
    this.registry.onCollect('event_log_horizon', async () => {
      const { holder } = await probe.read();
      this.horizonHeld.clear();
      if (holder) this.horizonHeld.set({ pid: holder.pid === null ? '' : String(holder.pid), database: holder.database ?? '' }, holder.heldSeconds);
    });
  }

  /** Reports the cache's figures at each scrape; returns the cache StreamStateStore should use, which also feeds the queue depths. */
  watchStateCache(cache: BoundedStateCache): StateCache {
    this.registry.onCollect('state_cache', () => {
      const stats = cache.stats();
      this.cacheEntries.set({}, stats.entries);
      this.cacheBytes.set({}, stats.bytes);
      this.cachePinned.set({}, stats.pinned);
      for (const kind of ['warm', 'resumed', 'cold'] as const) this.cacheLoads.setTotal({ kind }, stats.loads[kind]);
      this.cacheEvictions.setTotal({ reason: 'lru' }, stats.evictions);
      this.cacheEvictions.setTotal({ reason: 'idle' }, stats.expired);
      this.cacheEvictions.setTotal({ reason: 'too_large' }, stats.tooLarge);
    });
    return new QueueWatchingStateCache(cache, this.queueDepths);
  }

  exposition(): Promise<string> {
    return this.registry.exposition();
  }

  close(): void {
    this.process.stop();
  }
}
