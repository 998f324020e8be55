// The request and response shapes of the Session Ledger HTTP API, as the typed client sends and receives them.
// Written against the OpenAPI document, not imported from the service: the client carries no server code, and
// test/e2e/clientOpenApiDrift.e2e.spec.ts fails when these and the document drift apart.

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type ChatType = 'dm' | 'group' | 'channel' | 'thread';
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** Where a message came from (Hermes' SessionSource); only platform and chatType are required. */
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

export interface ResolveOptions {
  groupSessionsPerUser?: boolean;
  threadSessionsPerUser?: boolean;
  agent?: string;
}

export interface ResolveRequest {
  source: SessionSource;
  forceNew?: boolean;
  options?: ResolveOptions;
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
}

export interface ResolveResponse {
  sessionKey: string;
  sessionId: string;
  /** warm: from the service's memory; resumed: rehydrated or resume-pending; cold: created. */
  state: 'warm' | 'resumed' | 'cold';
  created: boolean;
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
  turnCount: number;
  counters: SessionCounters;
  messageCount: number;
  parentSessionId: string | null;
  currentSlot: string;
  turnInFlight: { turnIndex: number; startedAt: string } | null;
  /** The newest started turn given up unrecorded (`timeout` or `gateway_restart`), else null. */
  lastAbandonedTurn: { turnIndex: number; startedAt: string; abandonedAt: string; reason: 'timeout' | 'gateway_restart' } | null;
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
  /** interrupt: a follow-up while busy (coalesced); queue: its own turn, FIFO. */
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
}

export interface GatewayStartedResponse {
  cleanShutdown: boolean;
  resume: Array<{ sessionKey: string; sessionId: string; reason: string; origin: SessionSource }>;
  suspended: string[];
  marked: string[];
  /** Started turns of this gateway's sessions that the start gave up (reason `gateway_restart`). */
  abandonedTurns: Array<{ sessionId: string; turnIndex: number }>;
  replayed: boolean;
  position: number;
}

export interface SessionsPage {
  sessions: SessionEntry[];
  nextCursor: string | null;
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

export interface JobView {
  id: string;
  name: string;
  description: string | null;
  prompt: string | null;
  skill: string | null;
  schedule: string;
  timeZone: string;
  enabled: boolean;
  state: string;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastStatus: string | null;
  revision?: number;
  position?: number;
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
  position: number;
}

export interface ReportRunRequest {
  status: 'ok' | 'error' | 'skipped';
  error?: string;
}

export interface ReportRunResponse {
  jobId: string;
  changed: boolean;
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

/** A session's timeline at a revision: what a rollback to it would restore. */
export interface SessionTimeline {
  turnIndex: number;
  counters: SessionCounters;
  transcript: Json[];
  memory: JsonObject[];
  currentSlot: string;
  slots: JsonObject[];
  lastSummaryTurn: number | null;
  checkpointId: string | null;
  nextMessageIndex: number;
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
  forkOf: Json;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  destroyedAt: string | null;
  turnInFlight: Json;
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
  forkOf: Json;
  turnIndex: number;
}

export interface ChildResponse extends SpawnedSession {
  agentName: string;
}

export interface SessionTreePage {
  sessionId: string;
  rootSessionId: string;
  depth: number;
  nodes: JsonObject[];
  nextCursor: string | null;
}

export interface SessionMemory {
  sessionId: string;
  entries: JsonObject[];
  revision: number;
  position: number;
}

export interface SessionSlots {
  sessionId: string;
  currentSlot: string;
  slots: JsonObject[];
  revision: number;
  position: number;
}
