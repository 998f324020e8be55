// The typed Session Ledger client: one method per operation, retries where they are safe, read-your-writes, event streams.
import type * as Admin from './adminApiTypes.js';
import type * as Agent from './agentSessionApiTypes.js';
import type * as Api from './ledgerApiTypes.js';
import type { ContextWindowAnswer, ContextWindowFormat, ContextWindowQuery } from './contextWindowApiTypes.js';
import { LedgerApiError, LedgerNetworkError } from './ledgerClientError.js';
import { ledgerOperations, type Operation, type OperationName } from './ledgerOperations.js';
import type { LedgerResponses } from './ledgerResponses.js';
import { reconnectingEventStream } from './reconnectingEventStream.js';
import type * as Runtime from './runtimeApiTypes.js';
import type * as Search from './searchApiTypes.js';
import { defaultRetryOptions, type Failure, neverConnected, type RetryOptions, retryDelayMs, shouldRetry } from './retryPolicy.js';

export interface LedgerClientOptions {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  retry?: Partial<RetryOptions>;
  /**
   * Read-your-writes (default on): the client remembers the highest position its commands answered and sends
   * it as `X-Min-Position` with every query, so a read model never answers from before the client's own write.
   */
  readYourWrites?: boolean;
  /** Per request, retries aside. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Told about every retry (operation, attempt, why), for logging. */
  onRetry?: (operation: string, attempt: number, reason: unknown) => void;
  /**
   * Send an `Idempotency-Key` with every write (default on): a fresh key per call, the same on the call's own
   * retries, so a write whose answer was lost is retried without being carried out twice.
   */
  idempotencyKeys?: boolean;
}

export interface CallOptions {
  /** Overrides the remembered position for this one query. */
  minPosition?: number;
  signal?: AbortSignal;
  /**
   * The `Idempotency-Key` of a write, instead of a fresh one: pass the key of an earlier call whose answer never
   * arrived (`LedgerNetworkError.idempotencyKey`) to send it again without it being carried out twice.
   */
  idempotencyKey?: string;
  /**
   * A write under /v1/sessions/{id}/ or /v1/conversations/{key}/ goes ahead only while that stream stands at this
   * revision (a read's `revision`); otherwise it fails with 412 PRECONDITION_FAILED and writes nothing.
   */
  ifMatch?: number;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Told about each reconnect (the service restarted, the connection dropped). */
  onReconnect?: (attempt: number, reason: unknown) => void;
}

type Params = Record<string, string>;
type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

const encodePath = (template: string, params: Params) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });

function queryString(operation: Operation, query: Query | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    // The operations table is what the drift test checks against the OpenAPI document: nothing may bypass it.
    if (!operation.query?.includes(name)) throw new TypeError(`${operation.path} takes no query parameter ${name}`);
    search.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class LedgerClient {
  private readonly baseUrl: string;
  private readonly retry: RetryOptions;
  private readonly fetch: typeof fetch;
  private highestPosition = 0;

  constructor(private readonly options: LedgerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = { ...defaultRetryOptions, ...options.retry };
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** The highest position this client's commands wrote (0 before any). */
  get position(): number {
    return this.highestPosition;
  }

  /** Adopts a position written elsewhere (another process, a previous run) for read-your-writes. */
  observePosition(position: number): void {
    if (Number.isSafeInteger(position) && position > this.highestPosition) this.highestPosition = position;
  }

  // Conversations
  resolveSession(request: Api.ResolveRequest, options?: CallOptions) {
    return this.call('resolveSession', {}, { body: request, ...options });
  }
  getConversation(sessionKey: string, options?: CallOptions) {
    return this.call('getConversation', { key: sessionKey }, options);
  }
  /** Hermes' update_session(key, last_prompt_tokens): the current session's prompt size, set without a turn. */
  updateConversation(sessionKey: string, request: Api.UpdateConversationRequest, options?: CallOptions) {
    return this.call('updateConversation', { key: sessionKey }, { body: request, ...options });
  }
  resetConversation(sessionKey: string, request: Api.ResetRequest = {}, options?: CallOptions) {
    return this.call('resetConversation', { key: sessionKey }, { body: request, ...options });
  }
  switchSession(sessionKey: string, sessionId: string, options?: CallOptions) {
    return this.call('switchSession', { key: sessionKey }, { body: { sessionId } satisfies Api.SwitchRequest, ...options });
  }
  suspendConversation(sessionKey: string, request: Api.SuspendRequest = {}, options?: CallOptions) {
    return this.call('suspendConversation', { key: sessionKey }, { body: request, ...options });
  }
  markResumePending(sessionKey: string, reason: Api.ResumeReason, options?: CallOptions) {
    return this.call('markResumePending', { key: sessionKey }, { body: { reason } satisfies Api.ResumePendingRequest, ...options });
  }
  clearResumePending(sessionKey: string, options?: CallOptions) {
    return this.call('clearResumePending', { key: sessionKey }, options);
  }
  conversationContext(
    sessionKey: string,
    query: { redactPii?: boolean; connectedPlatforms?: string[]; format?: 'ledger' | 'hermes' } = {},
    options?: CallOptions,
  ) {
    return this.call('conversationContext', { key: sessionKey }, { query, ...options });
  }
  conversationEvents(sessionKey: string, query: { fromRevision?: number; limit?: number } = {}, options?: CallOptions) {
    return this.call('conversationEvents', { key: sessionKey }, { query, ...options });
  }

  // The message queue
  enqueue(sessionKey: string, request: Api.EnqueueRequest, options?: CallOptions) {
    return this.call('enqueue', { key: sessionKey }, { body: request, ...options });
  }
  /** The next waiting message, or null when the queue is empty (204). */
  nextQueued(sessionKey: string, options?: CallOptions) {
    return this.call('nextQueued', { key: sessionKey }, options);
  }
  getQueue(sessionKey: string, options?: CallOptions) {
    return this.call('getQueue', { key: sessionKey }, options);
  }

  // Sessions, turns, transcripts, checkpoints
  recordTurn(sessionId: string, request: Api.RecordTurnRequest, options?: CallOptions) {
    return this.call('recordTurn', { id: sessionId }, { body: request, ...options });
  }
  startTurn(sessionId: string, options?: CallOptions) {
    return this.call('startTurn', { id: sessionId }, options);
  }
  getSession(sessionId: string, options?: CallOptions) {
    return this.call('getSession', { id: sessionId }, options);
  }
  /** `slot`: only that context slot's messages; `includeDeleted`: soft-deleted ones too, flagged. */
  getTranscript(sessionId: string, query: { includeDeleted?: boolean; slot?: string } = {}, options?: CallOptions) {
    return this.call('getTranscript', { id: sessionId }, { query, ...options });
  }
  /** The live transcript as one provider's request body, every tool call answered; `maxTokens` cuts the oldest turns. */
  /** The live transcript as `query.format`'s request body: the answer's `request` is typed for that provider. */
  contextWindow<Format extends ContextWindowFormat>(sessionId: string, query: ContextWindowQuery & { format: Format }, options?: CallOptions) {
    return this.call('contextWindow', { id: sessionId }, { query, ...options }) as Promise<ContextWindowAnswer<Format>>;
  }
  rewriteTranscript(sessionId: string, request: Api.RewriteTranscriptRequest, options?: CallOptions) {
    return this.call('rewriteTranscript', { id: sessionId }, { body: request, ...options });
  }
  rewind(sessionId: string, request: Api.RewindRequest = {}, options?: CallOptions) {
    return this.call('rewind', { id: sessionId }, { body: request, ...options });
  }
  createCheckpoint(sessionId: string, request: Api.CreateCheckpointRequest = {}, options?: CallOptions) {
    return this.call('createCheckpoint', { id: sessionId }, { body: request, ...options });
  }
  /** Newest first; `before` is the previous page's `nextBefore` (a revision). */
  listCheckpoints(sessionId: string, query: { before?: number | string; limit?: number } = {}, options?: CallOptions) {
    return this.call('listCheckpoints', { id: sessionId }, { query, ...options });
  }
  rollback(sessionId: string, checkpointId: string, options?: CallOptions) {
    return this.call('rollback', { id: sessionId }, { body: { checkpointId } satisfies Api.RollbackRequest, ...options });
  }
  sessionState(sessionId: string, query: { revision?: number; at?: string } = {}, options?: CallOptions) {
    return this.call('sessionState', { id: sessionId }, { query, ...options });
  }
  sessionEvents(sessionId: string, query: { fromRevision?: number; limit?: number } = {}, options?: CallOptions) {
    return this.call('sessionEvents', { id: sessionId }, { query, ...options });
  }

  // Restart recovery
  gatewayStopping(gatewayId: string, request: Api.GatewayStoppingRequest, options?: CallOptions) {
    return this.call('gatewayStopping', { gatewayId }, { body: request, ...options });
  }
  gatewayStopped(gatewayId: string, request: Api.GatewayStoppedRequest = {}, options?: CallOptions) {
    return this.call('gatewayStopped', { gatewayId }, { body: request, ...options });
  }
  gatewayStarted(gatewayId: string, request: Api.GatewayStartedRequest, options?: CallOptions) {
    return this.call('gatewayStarted', { gatewayId }, { body: request, ...options });
  }
  /** Registers the gateway's whole platform list (display names, home channels, PII-safe ids) for the context prompt. */
  gatewayPlatforms(gatewayId: string, request: Api.GatewayPlatformsRequest, options?: CallOptions) {
    return this.call('gatewayPlatforms', { gatewayId }, { body: request, ...options });
  }

  // The sessions index (read models: these wait for the client's own writes)
  listSessions(query: Api.ListSessionsQuery = {}, options?: CallOptions) {
    return this.call('listSessions', {}, { query: { ...query }, ...options });
  }
  sessionByKey(sessionKey: string, options?: CallOptions) {
    return this.call('sessionByKey', { key: sessionKey }, options);
  }
  sessionRecord(sessionId: string, options?: CallOptions) {
    return this.call('sessionRecord', { id: sessionId }, options);
  }
  /** Whether the tenant holds at least `atLeast` sessions; Hermes' has_any_sessions is `(await sessionCount({ atLeast: 2 })).reached`. */
  sessionCount(query: Api.SessionCountQuery = {}, options?: CallOptions) {
    return this.call('sessionCount', {}, { query: { ...query }, ...options });
  }
  exportSessionsJson(options?: CallOptions) {
    return this.call('exportSessionsJson', {}, options);
  }

  // Scheduled jobs
  createJob(request: Api.CreateJobRequest, options?: CallOptions) {
    return this.call('createJob', {}, { body: request, ...options });
  }
  importJobs(jobsJson: { jobs: Api.JsonObject[] }, options?: CallOptions) {
    return this.call('importJobs', {}, { body: jobsJson, ...options });
  }
  listJobs(query: { enabled?: boolean; limit?: number; cursor?: string } = {}, options?: CallOptions) {
    return this.call('listJobs', {}, { query, ...options });
  }
  getJob(jobId: string, options?: CallOptions) {
    return this.call('getJob', { id: jobId }, options);
  }
  /** Pause (enabled false), resume, reschedule (schedule and/or timeZone) or replace other fields. */
  updateJob(jobId: string, request: Api.UpdateJobRequest, options?: CallOptions) {
    return this.call('updateJob', { id: jobId }, { body: request, ...options });
  }
  deleteJob(jobId: string, options?: CallOptions) {
    return this.call('deleteJob', { id: jobId }, options);
  }
  fireJob(jobId: string, request: Api.FireJobRequest = {}, options?: CallOptions) {
    return this.call('fireJob', { id: jobId }, { body: request, ...options });
  }
  reportRun(jobId: string, fireId: string, request: Api.ReportRunRequest, options?: CallOptions) {
    return this.call('reportRun', { id: jobId, fireId }, { body: request, ...options });
  }

  /** A new session starting from this one's state (or a checkpoint's): same conversation history, its own future. */
  forkSession(sessionId: string, request: Api.ForkRequest = {}, options?: CallOptions) {
    return this.call('forkSession', { id: sessionId }, { body: request, ...options });
  }

  /** A child session (a sub-agent's), starting empty, under this one in the session tree. */
  createChild(sessionId: string, request: Api.ChildRequest, options?: CallOptions) {
    return this.call('createChild', { id: sessionId }, { body: request, ...options });
  }

  /** The live subtree, the session first, depth-first (read model: waits for the client's own writes). */
  sessionTree(sessionId: string, query: Api.SessionTreeQuery = {}, options?: CallOptions) {
    return this.call('sessionTree', { id: sessionId }, { query: { ...query }, ...options });
  }
  /** Live children, oldest first. */
  listChildren(sessionId: string, query: Api.SessionChildrenQuery = {}, options?: CallOptions) {
    return this.call('listChildren', { id: sessionId }, { query: { ...query }, ...options });
  }
  sessionParent(sessionId: string, options?: CallOptions) {
    return this.call('sessionParent', { id: sessionId }, options);
  }
  // Sessions by external id (docs/agent-sessions.md)
  /** Creates the session of `externalId`, or answers the one that exists (`created` false). */
  putAgentSession(namespace: string, externalId: string, request: Agent.AgentSessionRequest = {}, options?: CallOptions) {
    return this.call('putAgentSession', { namespace, externalId }, { body: request, ...options });
  }
  /** Creates a session under an external id the service chooses. */
  createAgentSession(namespace: string, request: Agent.AgentSessionRequest = {}, options?: CallOptions) {
    return this.call('createAgentSession', { namespace }, { body: request, ...options });
  }
  getAgentSession(namespace: string, externalId: string, options?: CallOptions) {
    return this.call('getAgentSession', { namespace, externalId }, options);
  }
  deleteAgentSession(namespace: string, externalId: string, query: Agent.DeleteAgentSessionQuery = {}, options?: CallOptions) {
    return this.call('deleteAgentSession', { namespace, externalId }, { query: { ...query }, ...options });
  }
  /** Most recently changed first. */
  listAgentSessions(namespace: string, query: Agent.ListAgentSessionsQuery = {}, options?: CallOptions) {
    return this.call('listAgentSessions', { namespace }, { query: { ...query }, ...options });
  }

  // Item histories
  appendItems(sessionId: string, request: Agent.AppendItemsRequest, options?: CallOptions) {
    return this.call('appendItems', { id: sessionId }, { body: request, ...options });
  }
  /** The newest `limit` items, oldest first; or those before or after an item. */
  listItems(sessionId: string, query: Agent.ItemsQuery = {}, options?: CallOptions) {
    return this.call('listItems', { id: sessionId }, { query: { ...query }, ...options });
  }
  /** One item by its id (`404 ITEM_NOT_FOUND` when the history does not hold it). */
  getItem(sessionId: string, itemId: string, options?: CallOptions) {
    return this.call('getItem', { id: sessionId, itemId }, options);
  }
  popItem(sessionId: string, options?: CallOptions) {
    return this.call('popItem', { id: sessionId }, options);
  }
  clearItems(sessionId: string, options?: CallOptions) {
    return this.call('clearItems', { id: sessionId }, options);
  }

  // Key-value states: a session's own values, shared states by namespace and id
  getSessionValues(sessionId: string, options?: CallOptions) {
    return this.call('getSessionValues', { id: sessionId }, options);
  }
  /** Each key of `delta` takes its value, the other keys stay; `sharedStateDeltas` change in the same append. */
  changeSessionValues(sessionId: string, request: Agent.ChangeValuesRequest, options?: CallOptions) {
    return this.call('changeSessionValues', { id: sessionId }, { body: request, ...options });
  }
  /** Empty, at revision -1, when nothing was ever written to it. */
  getSharedState(namespace: string, stateId: string, options?: CallOptions) {
    return this.call('getSharedState', { namespace, stateId }, options);
  }
  changeSharedState(namespace: string, stateId: string, request: Agent.ChangeStateRequest, options?: CallOptions) {
    return this.call('changeSharedState', { namespace, stateId }, { body: request, ...options });
  }

  /** Its events stay for audit; `cascade` destroys its subtree too, else its children become orphans. */
  destroySession(sessionId: string, query: Api.DestroySessionQuery = {}, options?: CallOptions) {
    return this.call('destroySession', { id: sessionId }, { query: { ...query }, ...options });
  }

  sessionMemory(sessionId: string, options?: CallOptions) {
    return this.call('sessionMemory', { id: sessionId }, options);
  }
  setMemory(sessionId: string, name: string, request: Api.SetMemoryRequest, options?: CallOptions) {
    return this.call('setMemory', { id: sessionId, name }, { body: request, ...options });
  }
  /** 404 MEMORY_ENTRY_NOT_FOUND when there is none. */
  removeMemory(sessionId: string, name: string, options?: CallOptions) {
    return this.call('removeMemory', { id: sessionId, name }, options);
  }

  sessionSlots(sessionId: string, options?: CallOptions) {
    return this.call('sessionSlots', { id: sessionId }, options);
  }
  /** 409 SLOT_EXISTS when it does. */
  createSlot(sessionId: string, name: string, options?: CallOptions) {
    return this.call('createSlot', { id: sessionId }, { body: { name } satisfies Api.CreateSlotRequest, ...options });
  }
  /** Later turns, rewinds and rewrites go to this slot. */
  switchSlot(sessionId: string, name: string, options?: CallOptions) {
    return this.call('switchSlot', { id: sessionId, name }, options);
  }

  // The runtime API: a conversation bound to an agent runtime session, and the worker that runs it
  /** A turn on the bound runtime session; a new one when unbound, on newSession, or on provider/model drift (409 RUNTIME_BUSY while one runs). */
  runtimeTurn(sessionKey: string, request: Runtime.RuntimeTurnRequest, options?: CallOptions) {
    return this.call('runtimeTurn', { key: sessionKey }, { body: request, ...options });
  }
  /** `/new <task>`: a new runtime session bound and the task started on it. */
  newRuntime(sessionKey: string, request: Runtime.NewRuntimeRequest & { task: string }, options?: CallOptions): Promise<Runtime.RuntimeTurnResponse>;
  /** `/new` with no task: unbind. */
  newRuntime(sessionKey: string, request?: Omit<Runtime.NewRuntimeRequest, 'task'>, options?: CallOptions): Promise<Runtime.RuntimeDetachResponse>;
  newRuntime(sessionKey: string, request: Runtime.NewRuntimeRequest = {}, options?: CallOptions) {
    return this.call('newRuntime', { key: sessionKey }, { body: request, ...options });
  }
  /** `/detach`: unbind the runtime session; the conversation and its history stay. */
  detachRuntime(sessionKey: string, options?: CallOptions) {
    return this.call('detachRuntime', { key: sessionKey }, options);
  }
  runtimeBinding(sessionKey: string, options?: CallOptions) {
    return this.call('runtimeBinding', { key: sessionKey }, options);
  }
  /** Approvals and questions the bound runtime session waits on. */
  runtimePending(sessionKey: string, options?: CallOptions) {
    return this.call('runtimePending', { key: sessionKey }, options);
  }
  /** The worker's report: started, progress, question, approval_request, approval_resolved, completed, failed. */
  reportWorkerEvent(runtimeSessionId: string, event: Runtime.WorkerEvent, options?: CallOptions) {
    return this.call('reportWorkerEvent', { id: runtimeSessionId }, { body: event, ...options });
  }
  answerApproval(runtimeSessionId: string, approvalId: string, request: Runtime.ApprovalAnswerRequest, options?: CallOptions) {
    return this.call('answerApproval', { id: runtimeSessionId, approvalId }, { body: request, ...options });
  }
  answerQuestion(runtimeSessionId: string, questionId: string, answer: string, options?: CallOptions) {
    return this.call('answerQuestion', { id: runtimeSessionId, questionId }, { body: { answer } satisfies Runtime.QuestionAnswerRequest, ...options });
  }
  getRuntimeSession(runtimeSessionId: string, options?: CallOptions) {
    return this.call('getRuntimeSession', { id: runtimeSessionId }, options);
  }

  /** Full-text search over transcripts, hits by rank (a read model: waits for the client's own writes). */
  search(query: Search.SearchQuery & { groupBy?: undefined }, options?: CallOptions): Promise<Search.SearchHitsPage>;
  /** groupBy session: the best sessions, each with its best hits. */
  search(query: Search.SearchQuery & { groupBy: 'session' }, options?: CallOptions): Promise<Search.SearchSessionsPage>;
  search(query: Search.SearchQuery, options?: CallOptions) {
    return this.call('search', {}, { query: { ...query }, ...options });
  }

  // Admin (an admin token when API_TOKENS names tenants)
  listProjections(options?: CallOptions) {
    return this.call('listProjections', {}, options);
  }
  getProjection(name: string, options?: CallOptions) {
    return this.call('getProjection', { name }, options);
  }
  /** Empties the projection and replays it from position 0; answers at once (202): poll getProjection for progress. */
  rebuildProjection(name: string, options?: CallOptions) {
    return this.call('rebuildProjection', { name }, options);
  }
  listStreams(query: Admin.StreamsQuery = {}, options?: CallOptions) {
    return this.call('listStreams', {}, { query: { ...query }, ...options });
  }
  /** Forget routing entries idle longer than maxAgeDays, keeping suspended ones; their events stay. */
  pruneConversations(maxAgeDays: number, options?: CallOptions) {
    return this.call('pruneConversations', {}, { body: { maxAgeDays } satisfies Admin.PruneRequest, ...options });
  }
  /** Erase a session key's messages and personal ids everywhere, keeping the lifecycle skeleton (docs/erasure.md). */
  eraseConversation(request: Admin.EraseRequest, options?: CallOptions) {
    return this.call('eraseConversation', {}, { body: request, ...options });
  }
  /** Apply the retention policy now, or with dryRun report what it would expire (docs/retention.md). */
  applyRetention(request: Admin.RetentionRequest = {}, options?: CallOptions) {
    return this.call('applyRetention', {}, { body: request, ...options });
  }

  health(options?: CallOptions) {
    return this.call('health', {}, options);
  }
  /** The token's name, scope and tenant, as the service sees it. */
  whoami(options?: CallOptions) {
    return this.call('whoami', {}, options);
  }
  /**
   * Readiness (event store, read models, projections, and where they apply the log's horizon and the job scheduler).
   * A service that is not ready answers 503, thrown as a LedgerApiError whose `details` is the answer with its checks.
   */
  ready(options?: CallOptions) {
    return this.call('ready', {}, options);
  }

  /** Lifecycle events (suspends, resume marks, turns, fires, ...) as they are written; resumes after a reconnect. */
  async *events(query: Api.EventStreamQuery = {}, options: StreamOptions = {}): AsyncGenerator<Api.LifecycleEvent> {
    for await (const event of this.stream('lifecycleEvents', { types: query.types, sessionKey: query.sessionKey, fromPosition: query.fromPosition }, options)) {
      yield JSON.parse(event.data) as Api.LifecycleEvent;
    }
  }

  /** Job fires and run reports as they happen; resumes after a reconnect. */
  async *jobFires(query: Api.JobFiresQuery = {}, options: StreamOptions = {}): AsyncGenerator<Api.JobFireEvent> {
    for await (const event of this.stream('jobFires', { from: query.from }, options)) {
      const data = JSON.parse(event.data) as Api.JobFireEvent['data'];
      yield { name: event.event as Api.JobFireEvent['name'], position: Number(event.id), data };
    }
  }

  private stream(name: OperationName, query: Query, options: StreamOptions) {
    const operation: Operation = ledgerOperations[name];
    const url = `${this.baseUrl}${operation.path}${queryString(operation, query)}`;
    return reconnectingEventStream({
      operation: name,
      retry: this.retry,
      signal: options.signal,
      onReconnect: options.onReconnect,
      open: (lastEventId, signal) =>
        this.fetch(url, { headers: { ...this.headers(), accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal }),
      refuse: (response) => this.apiError(name, response),
    });
  }

  private headers(): Record<string, string> {
    return this.options.token ? { authorization: `Bearer ${this.options.token}` } : {};
  }

  private async call<N extends keyof LedgerResponses>(
    name: N,
    params: Params,
    options: CallOptions & { body?: unknown; query?: Query } = {},
  ): Promise<LedgerResponses[N]> {
    const operation: Operation = ledgerOperations[name];
    const url = `${this.baseUrl}${encodePath(operation.path, params)}${queryString(operation, options.query)}`;
    const started = Date.now();
    // One key for the whole call: every retry of it is the same request to the service.
    const idempotencyKey =
      operation.method === 'GET'
        ? undefined
        : (options.idempotencyKey ?? (this.options.idempotencyKeys !== false ? globalThis.crypto.randomUUID() : undefined));
    const safeToRepeat = operation.safeToRepeat || idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt++) {
      let failure: Failure;
      let error: Error;
      try {
        const response = await this.send(operation, url, { ...options, idempotencyKey });
        if (response.ok) return (await this.answer(operation, response)) as LedgerResponses[N];
        const refused = await this.apiError(name, response);
        failure = { kind: 'answer', status: refused.status, code: refused.code };
        error = refused;
      } catch (thrown) {
        if (options.signal?.aborted) throw thrown;
        const connected = !neverConnected(thrown);
        failure = { kind: 'network', connected };
        error = new LedgerNetworkError(name, connected && !operation.safeToRepeat, thrown, idempotencyKey);
      }
      const delay = retryDelayMs(attempt, this.retry);
      const last = attempt + 1 >= this.retry.maxAttempts || Date.now() - started + delay > this.retry.maxElapsedMs;
      if (last || !shouldRetry(failure, safeToRepeat)) throw error;
      this.options.onRetry?.(name, attempt + 1, error);
      await sleep(delay);
    }
  }

  private send(operation: Operation, url: string, options: CallOptions & { body?: unknown; idempotencyKey?: string }): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers(), accept: 'application/json' };
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.ifMatch !== undefined && operation.method !== 'GET') headers['if-match'] = `"${options.ifMatch}"`;
    if (operation.method === 'GET' && this.options.readYourWrites !== false) {
      const minPosition = options.minPosition ?? this.highestPosition;
      if (minPosition > 0) headers['x-min-position'] = String(minPosition);
    }
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    return this.fetch(url, { method: operation.method, headers, body, signal });
  }

  private async answer(operation: Operation, response: Response): Promise<unknown> {
    if (response.status === 204) return null;
    const body = (await response.json()) as unknown;
    const position = (body as { position?: unknown } | null)?.position;
    if (operation.method !== 'GET' && typeof position === 'number') this.observePosition(position);
    return body;
  }

  private async apiError(name: string, response: Response): Promise<LedgerApiError> {
    const text = await response.text().catch(() => '');
    let error: { code?: string; message?: string; requestId?: string; details?: unknown } | undefined;
    try {
      const parsed = JSON.parse(text) as { error?: typeof error } | null;
      // An answer that is no error envelope (a 503 from /ready, with its checks) is the refusal's details, whole.
      error = parsed?.error ?? { details: parsed };
    } catch {
      error = undefined;
    }
    const requestId = error?.requestId ?? response.headers.get('x-request-id') ?? undefined;
    return new LedgerApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? (text.slice(0, 200) || response.statusText),
      requestId,
      error?.details,
      name,
    );
  }
}
