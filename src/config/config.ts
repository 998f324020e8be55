// The one configuration loader: environment variables, validated at start with messages that name the variable.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { type ApiToken, parseApiTokens } from './apiTokens.js';
import { isKnownTimeZone } from './timeZone.js';
import { erasureCrashSteps, type ErasureCrashStep } from './erasureCrashSteps.js';
import { queueFollowUpModes, type QueueFollowUps } from './queueFollowUps.js';
import { MAX_RETENTION_DAYS, type RetentionSettings, retentionDaysByPlatformSchema } from './retentionSettings.js';
import { noResetRules, resetPoliciesByPlatformSchema, resetPoliciesByTypeSchema, resetPolicySchema, type ResetRules } from './resetPolicySettings.js';

/** Injection token of the LedgerConfig. */
export const CONFIG = Symbol('LedgerConfig');

const booleanFlag = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((value) => ['true', '1', 'yes', 'on'].includes(value));

const schemaName = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lowercase SQL identifier');

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  EMBEDDED_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9]\d{0,6}(kB|MB|GB)$/, 'must be a PostgreSQL size like 32MB or 128MB')
    .default('32MB'),
  EVENT_STORE_URL: z
    .string()
    .regex(/^(postgres|postgresql|esdb|esdb\+discover|kurrentdb|kurrentdb\+discover):\/\//, 'must start with postgres:// or esdb://')
    .optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres://')
    .optional(),
  EVENT_STORE_SCHEMA: schemaName.default('ledger'),
  READ_MODEL_SCHEMA: schemaName.default('ledger_read'),
  API_TOKEN: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)?$/i, 'must be a size like 1mb, 512kb or 1048576')
    .default('1mb'),
  READ_WAIT_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  EVENT_LOG_HORIZON_STALL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(5),
  MAX_EVENT_STREAMS_PER_TOKEN: z.coerce.number().int().min(1).max(100_000).default(32),
  MAX_EVENT_STREAMS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  PROJECTIONS_ENABLED: booleanFlag.default(true),
  PROJECTION_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  PROJECTION_CATCH_UP_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(2_000),
  PROJECTION_WAKE_DELAY_MS: z.coerce.number().int().min(0).max(1_000).default(10),
  PROJECTION_PARK_AFTER_FAILURES: z.coerce.number().int().min(0).max(1_000).default(5),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  AGENT_NAME: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'must be 1-32 of a-z 0-9 _ -')
    .default('main'),
  GROUP_SESSIONS_PER_USER: booleanFlag.default(true),
  THREAD_SESSIONS_PER_USER: booleanFlag.default(false),
  SESSION_KEY_ESCAPE_IDS: booleanFlag.default(false),
  WHATSAPP_ALIASES_FILE: z.string().optional(),
  // Hermes' auto-continue freshness window: 0 or less, a mark never goes stale.
  RESUME_FRESHNESS_SECONDS: z.coerce.number().int().default(3_600),
  TOUCH_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(3_600).default(10),
  SESSION_RESET: z.string().optional(),
  SESSION_RESET_BY_PLATFORM: z.string().optional(),
  SESSION_RESET_BY_TYPE: z.string().optional(),
  SESSION_RESET_TIMEZONE: z.string().refine(isKnownTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC').default('UTC'),
  SESSION_RESET_SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).max(10_000_000).default(10_000),
  CACHE_MAX_BYTES: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(268_435_456),
  CACHE_IDLE_TTL_SECONDS: z.coerce.number().int().min(0).default(3_600),
  HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(1_000).default(50),
  RUNTIME_HEARTBEAT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(300),
  RUNTIME_WATCHDOG_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  RUNTIME_RECOVER_ON_START: booleanFlag.default(true),
  TURN_IN_FLIGHT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(1_800),
  AUTO_CHECKPOINT: booleanFlag.default(true),
  SNAPSHOT_EVERY: z.coerce.number().int().min(0).max(1_000_000).default(500),
  JOB_TICK_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  JOB_CATCH_UP: z.enum(['once', 'all', 'none']).default('once'),
  JOBS_WEBHOOK_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  JOBS_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  JOBS_SCHEDULER_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  JOBS_CALLBACK_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  JOBS_CALLBACK_SECRET: z.string().min(32, 'must be at least 32 characters (an HS256 key of 256 bits)').optional(),
  JOBS_SCHEDULER_FALLBACK_AFTER: z.coerce.number().int().min(1).max(1_000).default(3),
  QUEUE_CAP: z.coerce.number().int().min(1).max(10_000).default(32),
  QUEUE_FOLLOW_UPS: z.enum(queueFollowUpModes).optional(),
  // The older spelling of QUEUE_FOLLOW_UPS=merge.
  QUEUE_MERGE_TEXT: booleanFlag.default(false),
  RECENT_ACTIVITY_SECONDS: z.coerce.number().int().min(0).default(120),
  STUCK_LOOP_THRESHOLD: z.coerce.number().int().min(1).max(100).default(3),
  AUTO_CONTINUE: booleanFlag.default(true),
  PRUNE_MAX_AGE_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  PRUNE_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  RETENTION_CONTENT_DAYS: z.coerce.number().int().min(1).max(MAX_RETENTION_DAYS).optional(),
  RETENTION_CONTENT_DAYS_BY_PLATFORM: z.string().optional(),
  RETENTION_KEEP_CHECKPOINTS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  RETENTION_INTERVAL_MINUTES: z.coerce.number().int().min(0).max(10_080).default(60),
  MAX_MESSAGES_PER_TURN: z.coerce.number().int().min(1).max(100_000).default(1_000),
  MAX_MESSAGE_BYTES: z.coerce.number().int().min(64).max(1_073_741_824).default(262_144),
  MAX_TRANSCRIPT_MESSAGES: z.coerce.number().int().min(1).max(100_000_000).default(100_000),
  MAX_CHILDREN_PER_SESSION: z.coerce.number().int().min(0).max(10_000_000).default(1_000),
  MAX_TREE_DEPTH: z.coerce.number().int().min(0).max(10_000).default(100),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(1).max(8_760).default(24),
  JSON_MAX_DEPTH: z.coerce.number().int().min(8).max(1_000).default(64),
  MAX_TURN_TOKENS: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1_000_000_000),
  MAX_SESSION_TOKENS: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1_000_000_000_000_000),
  // Test-only: the process kills itself (SIGKILL) when an erasure reaches this step; see erasureCrashSteps.
  ERASURE_TEST_CRASH_AT: z.enum(erasureCrashSteps).optional(),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface LedgerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** The embedded database's buffer pool: it lives in the service's own memory. */
  embeddedSharedBuffers: string;
  eventStore: { kind: 'embedded' } | { kind: 'postgres'; url: string } | { kind: 'esdb'; url: string };
  readModels: { kind: 'embedded' } | { kind: 'postgres'; url: string };
  eventStoreSchema: string;
  readModelSchema: string;
  /** Empty: no authentication (loopback only). */
  apiTokens: ApiToken[];
  logLevel: Environment['LOG_LEVEL'];
  bodyLimit: string;
  readWaitTimeoutMs: number;
  /** A transaction in the ledger's PostgreSQL database open this long holds readers of the log back: /ready says degraded. */
  logHorizonStallSeconds: number;
  /** Test-only (ERASURE_TEST_CRASH_AT): the erasure step at which the process kills itself, for crash tests. Unset in service. */
  erasureTestCrashAt?: ErasureCrashStep;
  /** Server-sent event streams (lifecycle events and job fires together) one token, and the whole instance, may hold open. */
  eventStreams: { perToken: number; total: number };
  dbPoolSize: number;
  projectionsEnabled: boolean;
  projectionBatchSize: number;
  projectionCatchUpBatchSize: number;
  /** How long the projections wait after an append before reading, so a burst of appends is one batch. */
  projectionWakeDelayMs: number;
  /** Failures in a row on one event's own data before its stream is parked (0: never park, stop instead). */
  projectionParkAfterFailures: number;
  shutdownTimeoutMs: number;
  sessions: {
    agent: string;
    groupSessionsPerUser: boolean;
    threadSessionsPerUser: boolean;
    /** Escape ':' and '%' inside ids in session keys (collision-free, unlike Hermes' keys); existing keys keep resolving either way. */
    escapeKeyIds: boolean;
    whatsappAliases: Record<string, string>;
    resumeFreshnessSeconds: number;
    touchIntervalSeconds: number;
    /** Opt-in automatic resets (Hermes' SessionResetPolicy): the server's policies and the zone of at_hour. */
    reset: ResetRules;
    /** How often the background sweep ends expired sessions ahead of their next message; 0: never (resolve still resets). */
    resetSweepIntervalMs: number;
  };
  cacheMaxEntries: number;
  /** Approximate memory budget of the folded-state cache (JSON length of each state); 0: no byte limit. */
  cacheMaxBytes: number;
  /** Cache entries idle longer than this are dropped (idle reclaim); 0: never. */
  cacheIdleTtlSeconds: number;
  /** How far the JavaScript heap may grow past its live data before a full collection, in percent; 0: V8's own choice. */
  heapGrowthPercent: number;
  runtime: {
    /** A turn in flight with no worker event for this long is interrupted (heartbeat_timeout). */
    heartbeatTimeoutSeconds: number;
    /** 0: no periodic stale sweep (start-up recovery still runs). */
    watchdogIntervalMs: number;
    /** Interrupt turns left in flight when this instance starts; off where several instances share the log. */
    recoverOnStart: boolean;
  };
  /** A turn started with POST /turns/start and not recorded within this is abandoned by the watchdog (reason timeout). */
  turnInFlightTimeoutSeconds: number;
  /** Every completed turn is also a checkpoint (recorded in its TurnRecorded event, no extra write). */
  autoCheckpoint: boolean;
  /** A session stream gets a snapshot of its folded state every this many events; 0: never. */
  snapshotEvery: number;
  jobs: {
    /** 0: no built-in ticker (an external scheduler fires jobs). */
    tickIntervalMs: number;
    catchUp: 'once' | 'all' | 'none';
    webhook: { url: string; secret: string } | null;
    /** An external scheduler that owns the timers (JOBS_SCHEDULER_URL); null: the built-in ticker does. */
    scheduler: JobSchedulerConfig | null;
    /** HS256 key of the scheduler's callback tokens: when set, a fire needs one (or an admin token). */
    callbackSecret: string | null;
  };
  queue: { cap: number; followUps: QueueFollowUps };
  /** autoContinue: a gateway start queues a continuation for each conversation to resume, unless its request says otherwise. */
  recovery: { recentActivitySeconds: number; stuckLoopThreshold: number; autoContinue: boolean };
  /** Scheduled prune: maxAgeDays null is off (POST /v1/admin/prune still works). */
  prune: { maxAgeDays: number | null; intervalMinutes: number };
  /** Retention (docs/retention.md): all null is off (POST /v1/admin/retention may still give a policy of its own). */
  retention: RetentionSettings;
  /** Bounds on what one request or one session may hold; each refusal has its own 4xx code. */
  limits: SessionLimits;
  /** How long an Idempotency-Key's answer is kept and replayed. */
  idempotencyTtlHours: number;
}

export interface JobSchedulerConfig {
  url: string;
  /** Where the scheduler reaches this service; null: the address it listens on. */
  callbackBaseUrl: string | null;
  /** Failed registration attempts in a row after which the built-in ticker takes over. */
  fallbackAfter: number;
}

export interface SessionLimits {
  /** Messages one turn may record (413 TOO_MANY_MESSAGES). */
  messagesPerTurn: number;
  /** UTF-8 bytes of one message as JSON, in a turn, a rewrite or the queue (413 MESSAGE_TOO_LARGE). */
  messageBytes: number;
  /** Messages a session's transcript holds, soft-deleted ones included (409 TRANSCRIPT_FULL). */
  transcriptMessages: number;
  /** Children and forks one session may spawn over its life (409 TOO_MANY_CHILDREN). */
  childrenPerSession: number;
  /** Depth of a session below its root; 0 allows no children at all (409 TREE_TOO_DEEP). */
  treeDepth: number;
  /** Levels of arrays and objects a request body may nest (400 JSON_TOO_DEEP beyond). */
  jsonDepth: number;
  /** Each usage field of one turn (400 TURN_USAGE_TOO_LARGE beyond). */
  turnTokens: number;
  /** A session's totalTokens (409 SESSION_USAGE_FULL beyond): with turnTokens, every counter stays a safe integer. */
  sessionTokens: number;
}

export class ConfigError extends Error {}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): LedgerConfig {
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const env = parsed.data;
  const eventStore: LedgerConfig['eventStore'] = !env.EVENT_STORE_URL
    ? { kind: 'embedded' }
    : /^(esdb|kurrentdb)/.test(env.EVENT_STORE_URL)
      ? { kind: 'esdb', url: env.EVENT_STORE_URL }
      : { kind: 'postgres', url: env.EVENT_STORE_URL };
  // Read models default to the event store's PostgreSQL when there is one; otherwise to the embedded database.
  const readModels: LedgerConfig['readModels'] = env.DATABASE_URL
    ? { kind: 'postgres', url: env.DATABASE_URL }
    : eventStore.kind === 'postgres'
      ? { kind: 'postgres', url: eventStore.url }
      : { kind: 'embedded' };
  let apiTokens: ApiToken[] = [];
  if (env.API_TOKEN) {
    try {
      apiTokens = parseApiTokens(env.API_TOKEN);
    } catch (error) {
      throw new ConfigError(`invalid configuration:\n  API_TOKEN: ${(error as Error).message}`);
    }
  }
  if (apiTokens.length === 0 && !isLoopback(env.HOST)) {
    throw new ConfigError(
      `HOST=${env.HOST}: without API_TOKEN the service only binds to loopback (127.0.0.1, ::1, localhost). Set API_TOKEN to serve other hosts.`,
    );
  }
  if (env.QUEUE_MERGE_TEXT && env.QUEUE_FOLLOW_UPS !== undefined && env.QUEUE_FOLLOW_UPS !== 'merge') {
    throw new ConfigError(`QUEUE_MERGE_TEXT=true is QUEUE_FOLLOW_UPS=merge, and QUEUE_FOLLOW_UPS=${env.QUEUE_FOLLOW_UPS} says otherwise: set one of them.`);
  }
  if (env.JOBS_WEBHOOK_URL && !env.JOBS_WEBHOOK_SECRET) {
    throw new ConfigError('JOBS_WEBHOOK_URL is set without JOBS_WEBHOOK_SECRET: fire webhooks are always signed.');
  }
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir: env.DATA_DIR,
    embeddedSharedBuffers: env.EMBEDDED_SHARED_BUFFERS,
    eventStore,
    readModels,
    eventStoreSchema: env.EVENT_STORE_SCHEMA,
    readModelSchema: env.READ_MODEL_SCHEMA,
    apiTokens,
    logLevel: env.LOG_LEVEL,
    bodyLimit: env.BODY_LIMIT,
    readWaitTimeoutMs: env.READ_WAIT_TIMEOUT_MS,
    logHorizonStallSeconds: env.EVENT_LOG_HORIZON_STALL_SECONDS,
    ...(env.ERASURE_TEST_CRASH_AT ? { erasureTestCrashAt: env.ERASURE_TEST_CRASH_AT } : {}),
    eventStreams: { perToken: env.MAX_EVENT_STREAMS_PER_TOKEN, total: env.MAX_EVENT_STREAMS },
    dbPoolSize: env.DB_POOL_SIZE,
    projectionsEnabled: env.PROJECTIONS_ENABLED,
    projectionBatchSize: env.PROJECTION_BATCH_SIZE,
    projectionCatchUpBatchSize: env.PROJECTION_CATCH_UP_BATCH_SIZE,
    projectionWakeDelayMs: env.PROJECTION_WAKE_DELAY_MS,
    projectionParkAfterFailures: env.PROJECTION_PARK_AFTER_FAILURES,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    sessions: {
      agent: env.AGENT_NAME,
      groupSessionsPerUser: env.GROUP_SESSIONS_PER_USER,
      threadSessionsPerUser: env.THREAD_SESSIONS_PER_USER,
      escapeKeyIds: env.SESSION_KEY_ESCAPE_IDS,
      whatsappAliases: env.WHATSAPP_ALIASES_FILE ? loadAliases(env.WHATSAPP_ALIASES_FILE) : {},
      resumeFreshnessSeconds: env.RESUME_FRESHNESS_SECONDS,
      touchIntervalSeconds: env.TOUCH_INTERVAL_SECONDS,
      reset: resetRulesOf(env),
      resetSweepIntervalMs: env.SESSION_RESET_SWEEP_INTERVAL_MS,
    },
    cacheMaxEntries: env.CACHE_MAX_ENTRIES,
    cacheMaxBytes: env.CACHE_MAX_BYTES,
    cacheIdleTtlSeconds: env.CACHE_IDLE_TTL_SECONDS,
    heapGrowthPercent: env.HEAP_GROWTH_PERCENT,
    runtime: {
      heartbeatTimeoutSeconds: env.RUNTIME_HEARTBEAT_TIMEOUT_SECONDS,
      watchdogIntervalMs: env.RUNTIME_WATCHDOG_INTERVAL_MS,
      recoverOnStart: env.RUNTIME_RECOVER_ON_START,
    },
    turnInFlightTimeoutSeconds: env.TURN_IN_FLIGHT_TIMEOUT_SECONDS,
    autoCheckpoint: env.AUTO_CHECKPOINT,
    snapshotEvery: env.SNAPSHOT_EVERY,
    jobs: {
      tickIntervalMs: env.JOB_TICK_INTERVAL_MS,
      catchUp: env.JOB_CATCH_UP,
      webhook: env.JOBS_WEBHOOK_URL ? { url: env.JOBS_WEBHOOK_URL, secret: env.JOBS_WEBHOOK_SECRET! } : null,
      scheduler: env.JOBS_SCHEDULER_URL
        ? { url: env.JOBS_SCHEDULER_URL, callbackBaseUrl: env.JOBS_CALLBACK_BASE_URL ?? null, fallbackAfter: env.JOBS_SCHEDULER_FALLBACK_AFTER }
        : null,
      callbackSecret: env.JOBS_CALLBACK_SECRET ?? null,
    },
    queue: { cap: env.QUEUE_CAP, followUps: env.QUEUE_FOLLOW_UPS ?? (env.QUEUE_MERGE_TEXT ? 'merge' : 'fifo') },
    recovery: { recentActivitySeconds: env.RECENT_ACTIVITY_SECONDS, stuckLoopThreshold: env.STUCK_LOOP_THRESHOLD, autoContinue: env.AUTO_CONTINUE },
    prune: { maxAgeDays: env.PRUNE_MAX_AGE_DAYS ?? null, intervalMinutes: env.PRUNE_INTERVAL_MINUTES },
    retention: {
      contentDays: env.RETENTION_CONTENT_DAYS ?? null,
      contentDaysByPlatform: env.RETENTION_CONTENT_DAYS_BY_PLATFORM
        ? jsonVariable('RETENTION_CONTENT_DAYS_BY_PLATFORM', env.RETENTION_CONTENT_DAYS_BY_PLATFORM, retentionDaysByPlatformSchema)
        : new Map(),
      keepCheckpoints: env.RETENTION_KEEP_CHECKPOINTS ?? null,
      intervalMinutes: env.RETENTION_INTERVAL_MINUTES,
    },
    limits: {
      messagesPerTurn: env.MAX_MESSAGES_PER_TURN,
      messageBytes: env.MAX_MESSAGE_BYTES,
      transcriptMessages: env.MAX_TRANSCRIPT_MESSAGES,
      childrenPerSession: env.MAX_CHILDREN_PER_SESSION,
      treeDepth: env.MAX_TREE_DEPTH,
      jsonDepth: env.JSON_MAX_DEPTH,
      turnTokens: env.MAX_TURN_TOKENS,
      sessionTokens: env.MAX_SESSION_TOKENS,
    },
    idempotencyTtlHours: env.IDEMPOTENCY_TTL_HOURS,
  };
}

function resetRulesOf(env: Environment): ResetRules {
  return {
    default: env.SESSION_RESET ? jsonVariable('SESSION_RESET', env.SESSION_RESET, resetPolicySchema) : noResetRules.default,
    byPlatform: env.SESSION_RESET_BY_PLATFORM
      ? jsonVariable('SESSION_RESET_BY_PLATFORM', env.SESSION_RESET_BY_PLATFORM, resetPoliciesByPlatformSchema)
      : new Map(),
    byType: env.SESSION_RESET_BY_TYPE ? jsonVariable('SESSION_RESET_BY_TYPE', env.SESSION_RESET_BY_TYPE, resetPoliciesByTypeSchema) : {},
    timeZone: env.SESSION_RESET_TIMEZONE,
  };
}

/** A variable holding JSON: unreadable JSON and every problem of its shape are named with the variable. */
function jsonVariable<T extends z.ZodType>(name: string, text: string, schema: T): z.output<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  ${name}: not JSON (${(error as Error).message})`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${[name, ...issue.path].join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

function loadAliases(path: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`WHATSAPP_ALIASES_FILE: cannot read ${path} as JSON: ${(error as Error).message}`);
  }
  const aliases = z.record(z.string().min(1), z.string().min(1)).safeParse(parsed);
  if (!aliases.success) throw new ConfigError(`WHATSAPP_ALIASES_FILE: ${path} must be a JSON object of alias → canonical id strings`);
  return aliases.data;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}
