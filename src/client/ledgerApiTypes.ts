// The request and response shapes of the Session Ledger HTTP API, as the typed client sends and receives them.
// Written against the OpenAPI document, not imported from the service: the client carries no server code, and
// test/e2e/clientOpenApiDrift.e2e.spec.ts fails when these and the document drift apart.

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type ChatType = 'dm' | 'group' | 'channel' | 'thread';
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** Where a message came from (Hermes' SessionSource); the service needs only platform (chatType defaults to dm), this type asks for both. */
export interface SessionSource {
  platform: string;
  chatType: ChatType;
  chatId?: string;
  chatName?: string;
  userId?: string;
  userName?: string;
  threadId?: string;
  chatTopic?: string;
  userIdAlt?: string;
  chatIdAlt?: string;
  isBot?: boolean;
  guildId?: string;
  parentChatId?: string;
  messageId?: string;
  roleAuthorized?: boolean;
}

/** Hermes' SessionResetPolicy, in its own field names; a missing or null field takes Hermes' default. */
export interface ResetPolicy {
  mode: 'none' | 'idle' | 'daily' | 'both';
  at_hour: number;
  idle_minutes: number;
  notify: boolean;
  notify_exclude_platforms: string[];
  bg_process_max_age_hours: number;
}

export interface ResolveOptions {
  groupSessionsPerUser?: boolean;
  threadSessionsPerUser?: boolean;
  agent?: string;
  /** This conversation's own reset policy, stored with it; null goes back to the server's. */
  resetPolicy?: Partial<ResetPolicy> | null;
}

/** What the gateway is doing for the conversation besides its turns. */
export interface ResolveActivity {
  /** Start of the gateway's oldest live background process for it; null: none. */
  backgroundProcessSince: string | null;
}

export interface ResolveRequest {
  source: SessionSource;
  forceNew?: boolean;
  options?: ResolveOptions;
  activity?: ResolveActivity;
  gatewayId?: string;
}

/** A routing entry: Hermes' SessionEntry, camelCase. */
export interface SessionEntry extends SessionCounters {
  sessionKey: string;
  sessionId: string;
  createdAt: string;
  updatedAt: string;
  origin: SessionSource;
  displayName: string | null;
  platform: string;
  chatType: string;
  gatewayId: string;
  suspended: boolean;
  resumePending: boolean;
  resumeReason: string | null;
  lastResumeMarkedAt: string | null;
  wasAutoReset: boolean;
  autoResetReason: string | null;
  resetHadActivity: boolean;
  isFreshReset: boolean;
  expiryFinalized: boolean;
  costStatus: string;
  turnCount: number;
  sessionIds?: string[];
  /** The conversation's own reset policy; null: the server's applies. */
  resetPolicy: ResetPolicy | null;
}

export interface ResolveResponse {
  sessionKey: string;
  sessionId: string;
  /** warm: from the service's memory; resumed: rehydrated or resume-pending; cold: created. */
  state: 'warm' | 'resumed' | 'cold';
  created: boolean;
  /** This resolve replaced the session automatically (idle, daily, suspended, resume_expired). */
  wasAutoReset: boolean;
  autoResetReason: string | null;
  /** The replaced session had turns. */
  resetHadActivity: boolean;
  /** A reset policy's idle or daily reset, when the policy notifies on this platform: text to send the user. */
  notice: string | null;
  entry: SessionEntry;
  position: number;
}

export interface ConversationResponse extends SessionEntry {
  revision: number;
  position: number;
}

export interface ConversationChangeResponse {
  sessionKey: string;
  sessionId: string;
  previousSessionId: string | null;
  changed: boolean;
  entry: SessionEntry;
  position: number;
}

/** Hermes' update_session(key, last_prompt_tokens): what PATCH /v1/conversations/{key} sets. */
export interface UpdateConversationRequest {
  /** The prompt size the model last reported for the current session; replaces the counter, no turn recorded. */
  lastPromptTokens: number;
}

export interface UpdateConversationResponse {
  sessionKey: string;
  /** The session the count was set on: the conversation's current one. */
  sessionId: string;
  /** False when the session held this count already (nothing written). */
  changed: boolean;
  entry: SessionEntry;
  position: number;
}

/** A reset or a suspend: the conversation change, and what it did to the runtime binding. */
export interface ConversationRuntimeEndResponse extends ConversationChangeResponse {
  /** The runtime session unbound, or null (none was bound, or keepRuntime). */
  detachedRuntimeSessionId: string | null;
  /** A forced reset: the runtime turn it interrupted, or null. */
  interruptedTurnId: string | null;
}

export interface ResetRequest {
  /** Keep the conversation's runtime binding (by default a reset ends it). */
  keepRuntime?: boolean;
  /** Interrupt a runtime turn in flight instead of answering 409 RUNTIME_BUSY. */
  force?: boolean;
  /** The conversation's display name from now on (Hermes' reset_session display_name); omitted: kept. */
  displayName?: string;
}

export interface SwitchRequest {
  sessionId: string;
}

export interface SuspendRequest {
  reason?: string;
  /** Keep the conversation's runtime binding (by default a suspend ends it). */
  keepRuntime?: boolean;
}

export type ResumeReason = 'restart_timeout' | 'shutdown_timeout' | 'restart_interrupted';

export interface ResumePendingRequest {
  reason: ResumeReason;
}

export interface ContextResponse {
  sessionKey: string;
  sessionId: string;
  redactPii: boolean;
  /** Which rendering `prompt` is: the service's own, or Hermes' build_session_context_prompt byte for byte. */
  format: 'ledger' | 'hermes';
  /** The isolation the conversation was resolved with (the server's settings for one opened before they were kept). */
  isolation: { groupSessionsPerUser: boolean; threadSessionsPerUser: boolean };
  prompt: string;
}

export interface MessageInput {
  role: MessageRole;
  content: Json;
  name?: string;
  toolCallId?: string;
  toolCalls?: Json[];
  metadata?: JsonObject;
}

export interface TurnUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  lastPromptTokens?: number | null;
  costUsd?: number;
}

export interface RecordTurnRequest {
  messages: MessageInput[];
  usage?: TurnUsage;
  status?: 'completed' | 'failed' | 'interrupted';
  /** The lease startTurn answered: recorded only while that turn is still in flight, else 409 LEASE_LOST. */
  lease?: number;
  /** Refuse the turn (400 TOOL_RESULT_MISMATCH, nothing written) when a tool result answers no open call or a completed turn leaves a call unanswered. */
  strictToolResults?: boolean;
}

export interface SessionCounters {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
  estimatedCostUsd: number;
  lastPromptTokens: number;
}

export interface RecordTurnResponse {
  turnIndex: number;
  revision: number;
  position: number;
  counters: SessionCounters;
  /** The turn's automatic checkpoint (completed turns, with AUTO_CHECKPOINT on), else null. */
  checkpointId: string | null;
}

export interface StartTurnResponse {
  turnIndex: number;
  /** The turn's fencing token: pass it to recordTurn so a late write after the turn was given up is refused. */
  lease: number;
  revision: number;
  position: number;
}

export interface SessionView {
  status: 'active' | 'ended' | 'destroyed';
  sessionId: string;
  sessionKey: string;
  origin: SessionSource;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  endReason: string | null;
  /** `endReason` as Hermes names it: `session_reset`, `session_switch`, `idle`, `daily`, `suspended`, `resume_pending_expired`. */
  hermesEndReason: string | null;
  turnCount: number;
  counters: SessionCounters;
  messageCount: number;
  /** Items in the session's item history (GET /v1/sessions/{id}/items). */
  itemCount: number;
  parentSessionId: string | null;
  /** A child's or a fork's agent, as it was spawned; null for a conversation's session. */
  agentName: string | null;
  metadata: JsonObject;
  /** The session and checkpoint a fork was taken from; null otherwise. */
  forkOf: ForkOrigin | null;
  currentSlot: string;
  /** The turn count when the transcript was last rewritten (how a summary lands), else null. */
  lastSummaryTurn: number | null;
  turnInFlight: { turnIndex: number; startedAt: string } | null;
  /** The newest started turn given up unrecorded (`timeout` or `gateway_restart`), else null. */
  lastAbandonedTurn: AbandonedTurn | null;
  destroyedAt: string | null;
  revision: number;
  position: number;
}

export interface TranscriptMessage extends MessageInput {
  index: number;
  turnIndex: number;
  at: string;
  slot: string;
  deleted?: boolean;
}

export interface TranscriptResponse {
  sessionId: string;
  messages: TranscriptMessage[];
  revision: number;
  position: number;
}

export interface QueuedMessageInput {
  id?: string;
  text?: string | null;
  media?: Json[];
  sender?: JsonObject | null;
  metadata?: JsonObject | null;
}

export interface EnqueueRequest {
  message: QueuedMessageInput;
  /** interrupt: a follow-up while busy (media join the waiting follow-up; QUEUE_FOLLOW_UPS); queue: its own turn, FIFO. */
  mode?: 'interrupt' | 'queue';
}

/** A running runtime turn asked to stop by an interrupting message (InterruptRequested). */
export interface RuntimeInterruptRequest {
  runtimeSessionId: string;
  turnId: string;
  messageId: string;
  requestedAt: string;
}

export interface EnqueueResponse {
  messageId: string;
  placement: 'slot' | 'overflow';
  /** The waiting follow-up this one joined (and replaced), or null. */
  coalescedInto: string | null;
  depth: number;
  /** The conversation's running runtime turn was asked to stop (mode interrupt only); null when none runs. */
  interruptRequested: RuntimeInterruptRequest | null;
  position: number;
}

export interface QueuedMessage {
  id: string;
  mode: 'interrupt' | 'queue';
  text: string | null;
  media: Json[];
  sender: JsonObject | null;
  metadata: JsonObject | null;
  queuedAt: string;
  /** Only on a message the service queued itself: a gateway start's continuation, taken before anything else. */
  kind?: 'auto_continue';
  continuation?: { reason: string; bootId: string; interruptedText: string | null };
}

export interface DequeueResponse {
  message: QueuedMessage;
  from: 'slot' | 'overflow';
  depth: number;
  position: number;
}

export interface QueueResponse {
  slot: QueuedMessage | null;
  overflow: QueuedMessage[];
  depth: number;
  revision: number;
  position: number;
}

export interface GatewayStoppingRequest {
  activeKeys?: string[];
  mode?: 'restart' | 'shutdown';
}

export interface GatewayStoppedRequest {
  drainTimedOut?: string[];
}

export interface GatewayStartedRequest {
  bootId: string;
  /** Queue a continuation at the head of each resumed conversation's queue; the server's AUTO_CONTINUE when omitted. */
  autoContinue?: boolean;
}

/** One platform a gateway is connected to, as PUT /v1/gateways/{id}/platforms takes it. */
export interface GatewayPlatformInput {
  /** `^[a-z0-9_-]{1,32}$`, each at most once in a list. */
  platform: string;
  displayName?: string | null;
  /** Where scheduled-job output for this platform goes by default. */
  homeChannel?: { chatId: string; name: string } | null;
  /** Show this platform's ids raw in a redacted prompt; omitted: true for discord only. */
  piiSafe?: boolean;
}

export interface GatewayPlatformsRequest {
  /** The gateway's whole list: it replaces the one registered before. */
  platforms: GatewayPlatformInput[];
}

/** A platform as the registry stores it: every field present. */
export interface GatewayPlatform {
  platform: string;
  displayName: string | null;
  homeChannel: { chatId: string; name: string } | null;
  piiSafe: boolean;
}

export interface GatewayPlatformsResponse {
  gatewayId: string;
  /** As stored: sorted by platform. */
  platforms: GatewayPlatform[];
  /** False when the list was already the registered one: nothing was appended. */
  changed: boolean;
  /** Whether the context prompt lists this gateway's platforms now (false after a stop, until the next start). */
  live: boolean;
  revision: number;
  position: number;
}

/** A conversation a drain could not change (gone, suspended), with the error code it answered. */
export interface SkippedConversation {
  sessionKey: string;
  code: string;
}

export interface GatewayStoppingResponse {
  gatewayId: string;
  mode: 'restart' | 'shutdown';
  /** Conversations marked resume-pending. */
  marked: string[];
  skipped: SkippedConversation[];
  position: number;
}

export interface GatewayStoppedResponse {
  gatewayId: string;
  /** Nothing timed out: the next start is not crash recovery. */
  cleanShutdown: boolean;
  /** Drained conversations unmarked. */
  cleared: string[];
  /** The ones whose drain timed out, left resume-pending. */
  stillMarked: string[];
  position: number;
}

export interface GatewayStartedResponse {
  cleanShutdown: boolean;
  resume: Array<{ sessionKey: string; sessionId: string; reason: string; origin: SessionSource }>;
  suspended: string[];
  marked: string[];
  /** Started turns of this gateway's sessions that the start gave up (reason `gateway_restart`). */
  abandonedTurns: Array<{ sessionId: string; turnIndex: number }>;
  /** Conversations whose queue holds this start's continuation (kind auto_continue) at its head. */
  continued: string[];
  replayed: boolean;
  position: number;
}

export interface SessionsPage {
  sessions: SessionEntry[];
  nextCursor: string | null;
}

export interface SessionCountQuery {
  /** Count up to this many (1-1000, default 1). */
  atLeast?: number;
}

/** Sessions of every status, children and forks included: Hermes' has_any_sessions is `reached` with atLeast 2. */
export interface SessionCountResponse {
  /** How many there are, counted up to atLeast. */
  count: number;
  atLeast: number;
  reached: boolean;
}

export interface ListSessionsQuery {
  activeMinutes?: number;
  platform?: string;
  limit?: number;
  cursor?: string;
}

export interface DeliveryTarget {
  platform: string;
  chatId: string;
  threadId?: string | null;
}

export interface JobOrigin {
  platform?: string | null;
  chatId?: string | null;
  chatName?: string | null;
  threadId?: string | null;
  userId?: string | null;
  sessionKey?: string | null;
}

export interface CreateJobRequest {
  id?: string;
  name?: string;
  description?: string;
  prompt?: string;
  skill?: string;
  schedule: string;
  timeZone?: string;
  deliverTo?: DeliveryTarget;
  origin?: JobOrigin;
  model?: string;
  repeat?: { times: number | null };
  enabled?: boolean;
}

/** A job's schedule as stored: a cron expression, a fixed interval from an anchor, or one instant. */
export type JobSchedule = { kind: 'cron'; expression: string } | { kind: 'interval'; everyMs: number; anchor: string } | { kind: 'once'; at: string };

export type RunStatus = 'ok' | 'error' | 'skipped';

export interface JobView {
  id: string;
  name: string;
  description: string | null;
  prompt: string | null;
  skill: string | null;
  /** The schedule as text that parses back to it: a cron expression, `every 30m`, or a one-shot's instant. */
  schedule: string;
  scheduleKind: JobSchedule['kind'];
  scheduleDefinition: JobSchedule;
  timeZone: string;
  deliverTo: DeliveryTarget | null;
  origin: JobOrigin | null;
  model: string | null;
  repeat: { times: number | null; completed: number };
  enabled: boolean;
  state: 'scheduled' | 'paused' | 'completed' | 'removed';
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastSlot: string | null;
  lastStatus: RunStatus | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A job as written: its view and the job stream's revision and position. */
export interface JobWritten extends JobView {
  revision: number;
  position: number;
}

/** One fire of a job, and its reported outcome once the gateway sends one. */
export interface JobFireRecord {
  fireId: string;
  slot: string;
  trigger: 'ticker' | 'external';
  firedAt: string;
  status: RunStatus | 'pending';
  error: string | null;
  reportedAt: string | null;
}

/** GET /v1/jobs/{id}: the job, folded from its stream, with its most recent fires (newest first). */
export interface JobDetail extends JobWritten {
  recentFires: JobFireRecord[];
}

/** PATCH /v1/jobs/{id}: fields left out stay as they are; null clears the nullable ones. */
export interface UpdateJobRequest {
  name?: string;
  description?: string | null;
  prompt?: string | null;
  skill?: string | null;
  deliverTo?: DeliveryTarget | null;
  origin?: JobOrigin | null;
  model?: string | null;
  repeat?: { times: number | null };
  /** Reschedule: new schedule text, new time zone, or both. */
  schedule?: string;
  timeZone?: string;
  /** false pauses, true resumes. */
  enabled?: boolean;
}

export interface UpdateJobResponse extends JobWritten {
  /** false when the patch matched what the job already was. */
  changed: boolean;
}

export interface ImportJobsResponse {
  created: JobView[];
  existing: string[];
  position: number;
}

export interface JobsPage {
  jobs: JobView[];
  nextCursor: string | null;
}

export interface FireJobRequest {
  slot?: string;
}

export interface JobTask {
  name: string;
  description: string | null;
  prompt: string | null;
  skill: string | null;
  deliverTo: DeliveryTarget | null;
  origin: JobOrigin | null;
  model: string | null;
}

export interface FireJobResponse {
  jobId: string;
  fireId: string;
  slot: string;
  skippedSlots: number;
  nextRunAt: string | null;
  completed: boolean;
  task: JobTask;
  /** Where the output goes, resolved at the fire: the job's deliverTo, else its origin chat, else a registered home channel (Hermes' deliver=origin); null: nowhere known. */
  delivery: (DeliveryTarget & { from: 'deliverTo' | 'origin' | 'home_channel' }) | null;
  position: number;
}

export interface ReportRunRequest {
  status: RunStatus;
  error?: string | null;
}

export interface ReportRunResponse {
  jobId: string;
  fire: JobFireRecord;
  changed: boolean;
  job: JobView;
  revision: number;
  position: number;
}

/** One event of the lifecycle stream (GET /v1/events/stream), as stored. */
export interface LifecycleEvent {
  position: number;
  streamName: string;
  revision: number;
  type: string;
  data: JsonObject;
  metadata: JsonObject;
  createdAt: string;
}

/** One message of the job fires stream (GET /v1/jobs/fires/stream). */
export interface JobFireEvent {
  name: 'job.fired' | 'job.run_reported';
  position: number;
  data: JsonObject & { jobId: string; fireId: string; slot: string };
}

export interface HealthResponse {
  status: string;
}

/** Who the request's token is (GET /v1/whoami): its name (the events' actor), its scope and its tenant. */
export interface WhoamiResponse {
  name: string;
  scope: 'read' | 'write' | 'admin';
  /** null: the default tenant (a token bound to none, or no tokens configured). */
  tenant: string | null;
}

export interface ReadinessCheck {
  ok: boolean;
  /** Why it failed. */
  detail?: string;
}

export interface ReadyResponse {
  /** degraded: ready, but a transaction elsewhere on the PostgreSQL server holds the event log's readers back. */
  status: 'ready' | 'degraded' | 'not_ready';
  checks: {
    eventStore: ReadinessCheck;
    readModels: ReadinessCheck;
    projections: { ok: boolean; states: Array<{ name: string; state: string; lastError: string | null; consecutiveFailures: number }> };
    /** PostgreSQL only. */
    eventLogHorizon?: ReadinessCheck & { holder?: { pid: number | null; database: string | null; heldSeconds: number } };
    /**
     * Only with JOBS_SCHEDULER_URL: who owns the job timers. `fallback` (not ok): the scheduler does not answer and the
     * built-in ticker fires due jobs meanwhile; `pending` counts the registrations still to send it.
     */
    jobScheduler?: ReadinessCheck & { timers: 'scheduler' | 'fallback'; failuresInARow: number; pending: number };
  };
}

/** SessionSource.to_dict() in Hermes' sessions.json: every field present, null for what the source did not say. */
export interface HermesSessionSource {
  platform: string;
  chat_id: string | null;
  chat_name: string | null;
  chat_type: ChatType;
  user_id: string | null;
  user_name: string | null;
  thread_id: string | null;
  chat_topic: string | null;
  user_id_alt: string | null;
  chat_id_alt: string | null;
  is_bot: boolean;
  guild_id: string | null;
  parent_chat_id: string | null;
  message_id: string | null;
  role_authorized: boolean;
}

/** One entry of Hermes' sessions.json (GET /v1/export/sessions.json), snake_case as the Python gateway reads it. */
export interface HermesSessionEntry {
  session_key: string;
  session_id: string;
  created_at: string;
  updated_at: string;
  origin: HermesSessionSource;
  display_name: string | null;
  platform: string;
  chat_type: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  total_tokens: number;
  estimated_cost_usd: number;
  cost_status: string;
  last_prompt_tokens: number;
  was_auto_reset: boolean;
  auto_reset_reason: string | null;
  reset_had_activity: boolean;
  is_fresh_reset: boolean;
  expiry_finalized: boolean;
  suspended: boolean;
  resume_pending: boolean;
  resume_reason: string | null;
  last_resume_marked_at: string | null;
}

export interface RewriteTranscriptRequest {
  messages: MessageInput[];
}

export interface RewindRequest {
  turns?: number;
}

export interface RewindResponse {
  rewoundCount: number;
  turnsUndone: number;
  targetText: string | null;
  revision: number;
  position: number;
}

export interface CreateCheckpointRequest {
  label?: string | null;
}

export interface RollbackRequest {
  checkpointId: string;
}

export interface StreamEventsPage {
  streamName: string;
  events: Array<Omit<LifecycleEvent, 'streamName'>>;
  nextRevision: number | null;
}

export interface EventStreamQuery {
  /** Event types to keep (SessionBound, Suspended, ResumeMarked, JobFired, ...); default: all. */
  types?: string[];
  /** Only this conversation's events: its own, its sessions', its runtime sessions', its jobs'. */
  sessionKey?: string;
  /** Start after this position (0: the whole log); default: only new events. A resumed stream uses Last-Event-ID. */
  fromPosition?: number;
}

export interface JobFiresQuery {
  /** Start after this position; default: only new fires. */
  from?: number;
}

export interface CheckpointListing {
  checkpointId: string;
  label: string | null;
  /** The revision whose state the checkpoint names. */
  revision: number;
  turnIndex: number;
  createdAt: string;
  /** Taken by the service after a turn (AUTO_CHECKPOINT), not asked for. */
  auto: boolean;
  /** Whether the current state descends from it (false once rolled back past it). */
  onCurrentTimeline: boolean;
}

export interface CheckpointList {
  sessionId: string;
  /** Newest first. */
  checkpoints: CheckpointListing[];
  /** Pass as `before` for the next page; null on the last. */
  nextBefore: number | null;
  revision: number;
  position: number;
}

export interface RollbackResponse {
  checkpointId: string;
  /** The checkpoint's revision: the state now equals the state then. */
  targetRevision: number;
  fromRevision: number;
  turnIndex: number;
  revision: number;
  position: number;
}

/** A session memory entry (agcore's SessionMemoryEntry): a value with its metadata, first and last set. */
export interface MemoryEntry {
  name: string;
  value: Json;
  metadata: JsonObject;
  createdAt: string;
  updatedAt: string;
}

/** A context slot: a named context whose messages are the transcript's messages recorded in it. */
export interface ContextSlot {
  name: string;
  createdAt: string;
}

export interface SlotView extends ContextSlot {
  /** Its live (not soft-deleted) messages. */
  messageCount: number;
  current: boolean;
}

/** Where a fork started: the session, the checkpoint (null: its state at the time) and that state's revision. */
export interface ForkOrigin {
  sessionId: string;
  checkpointId: string | null;
  revision: number;
}

export interface AbandonedTurn {
  turnIndex: number;
  startedAt: string;
  abandonedAt: string;
  reason: 'timeout' | 'gateway_restart';
}

/** A session's timeline at a revision: what a rollback to it would restore. */
export interface SessionTimeline {
  turnIndex: number;
  counters: SessionCounters;
  transcript: TranscriptMessage[];
  memory: MemoryEntry[];
  currentSlot: string;
  slots: SlotView[];
  lastSummaryTurn: number | null;
  checkpointId: string | null;
  nextMessageIndex: number;
  /** Items in the item history then (read them with GET /v1/sessions/{id}/items?revision=N). */
  itemCount: number;
}

export interface SessionStateView {
  sessionId: string;
  revision: number;
  position: number;
  /** Present when the state is read as of a revision or a time. */
  lastEventAt?: string | null;
  status: 'active' | 'ended' | 'destroyed';
  sessionKey: string;
  parentSessionId: string | null;
  agentName: string | null;
  forkOf: ForkOrigin | null;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  destroyedAt: string | null;
  turnInFlight: { turnIndex: number; startedAt: string } | null;
  lastAbandonedTurn: AbandonedTurn | null;
  state: SessionTimeline;
}

/** One session instance in the sessions index. */
export interface SessionRecord extends SessionCounters {
  sessionId: string;
  sessionKey: string;
  status: 'active' | 'ended' | 'destroyed';
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  endReason: string | null;
  origin: SessionSource;
  messageCount: number;
}

export interface ForkRequest {
  /** The checkpoint to fork from; the session's current state when left out. */
  checkpointId?: string;
  agentName?: string;
  metadata?: JsonObject;
}

export interface ChildRequest {
  agentName: string;
  metadata?: JsonObject;
}

export interface SpawnedSession {
  sessionId: string;
  parentSessionId: string;
  kind: 'child' | 'fork';
  revision: number;
  position: number;
}

export interface ForkResponse extends SpawnedSession {
  forkOf: ForkOrigin;
  turnIndex: number;
}

export interface ChildResponse extends SpawnedSession {
  agentName: string;
}

/** A session in the session tree: who spawned it and how. */
export interface SessionTreeNode {
  sessionId: string;
  /** Null for a root. */
  parentSessionId: string | null;
  /** Relative to the session asked about (its children are 1 deeper). */
  depth: number;
  kind: 'root' | 'child' | 'fork';
  agentName: string | null;
  createdAt: string;
}

export interface SessionTreePage {
  sessionId: string;
  rootSessionId: string;
  /** The session's own depth below its root. */
  depth: number;
  /** The session first, then its live subtree depth-first. */
  nodes: SessionTreeNode[];
  nextCursor: string | null;
}

export interface SessionTreeQuery {
  limit?: number;
  /** The previous page's nextCursor. */
  cursor?: string;
  /** How many levels below the session to include (default 100). */
  maxDepth?: number;
}

export interface SessionChildrenQuery {
  limit?: number;
  cursor?: string;
}

export interface SessionChildrenPage {
  sessionId: string;
  /** Live children, oldest first. */
  children: SessionTreeNode[];
  nextCursor: string | null;
}

export interface SessionParent {
  sessionId: string;
  /** The live parent; null for a root and for an orphan. */
  parent: SessionTreeNode | null;
  /** It had a parent, and that parent was destroyed. */
  orphaned: boolean;
}

export interface DestroySessionQuery {
  /** Destroy the whole subtree too; otherwise children become orphans. */
  cascade?: boolean;
}

export interface DestroySessionResponse {
  sessionId: string;
  /** Sessions this request destroyed, the subtree's first; empty when the session was destroyed already. */
  destroyed: string[];
  position: number;
}

export interface SessionMemory {
  sessionId: string;
  entries: MemoryEntry[];
  revision: number;
  position: number;
}

export interface SetMemoryRequest {
  value: Json;
  metadata?: JsonObject;
}

export interface SetMemoryResponse extends MemoryEntry {
  revision: number;
  position: number;
}

export interface RemoveMemoryResponse {
  name: string;
  removed: true;
  revision: number;
  position: number;
}

export interface SessionSlots {
  sessionId: string;
  currentSlot: string;
  slots: SlotView[];
  revision: number;
  position: number;
}

export interface CreateSlotRequest {
  name: string;
}

export interface CreateSlotResponse extends ContextSlot {
  revision: number;
  position: number;
}

export interface SwitchSlotResponse {
  currentSlot: string;
  /** The slot current before (the same slot when it already was). */
  previous: string;
  revision: number;
  position: number;
}
