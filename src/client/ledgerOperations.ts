// Every HTTP operation the client calls: method, path and the field names it sends. The drift test checks each against /openapi.json.
import type { EraseRequest, PruneRequest, RetentionRequest, StreamsQuery } from './adminApiTypes.js';
import type { ContextWindowQuery } from './contextWindowApiTypes.js';
import type {
  AgentSessionRequest,
  AppendItemsRequest,
  ChangeStateRequest,
  ChangeValuesRequest,
  DeleteAgentSessionQuery,
  ItemsQuery,
  ListAgentSessionsQuery,
  SharedStateDelta,
} from './agentSessionApiTypes.js';
import { fieldsOf } from './exhaustiveFields.js';
import type {
  ChildRequest,
  CreateCheckpointRequest,
  CreateJobRequest,
  CreateSlotRequest,
  DeliveryTarget,
  DestroySessionQuery,
  EnqueueRequest,
  EventStreamQuery,
  FireJobRequest,
  ForkRequest,
  GatewayPlatformInput,
  GatewayPlatformsRequest,
  GatewayStartedRequest,
  GatewayStoppedRequest,
  GatewayStoppingRequest,
  JobFiresQuery,
  JobOrigin,
  ListSessionsQuery,
  MessageInput,
  QueuedMessageInput,
  RecordTurnRequest,
  ReportRunRequest,
  ResetRequest,
  ResolveOptions,
  ResolveRequest,
  ResumePendingRequest,
  RewindRequest,
  RewriteTranscriptRequest,
  RollbackRequest,
  SessionChildrenQuery,
  SessionCountQuery,
  SessionSource,
  SessionTreeQuery,
  SetMemoryRequest,
  SuspendRequest,
  SwitchRequest,
  TurnUsage,
  UpdateConversationRequest,
  UpdateJobRequest,
} from './ledgerApiTypes.js';
import type { SearchQuery } from './searchApiTypes.js';
import type { ApprovalAnswerRequest, NewRuntimeRequest, QuestionAnswerRequest, RuntimeTurnRequest, WorkerEvent } from './runtimeApiTypes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  method: HttpMethod;
  /** OpenAPI path template: `{name}` parameters. */
  path: string;
  /** Top-level body fields the client's request type has. */
  body?: readonly string[];
  /** Fields of nested objects (or of an array's items), by top-level body field. */
  nested?: Readonly<Record<string, readonly string[]>>;
  /** A body that is one of several shapes told apart by its `type`: each shape's fields, by `type`. */
  variants?: Readonly<Record<string, readonly string[]>>;
  query?: readonly string[];
  /**
   * Whether sending it twice has the effect of sending it once, so a request whose answer was lost may be
   * sent again. Reads are; so are resolve (get-or-create), switch, suspend, the resume marks and run reports.
   */
  safeToRepeat: boolean;
  /** Answers a server-sent event stream, not JSON. */
  stream?: true;
}

const source = fieldsOf<SessionSource>()(
  'platform',
  'chatType',
  'chatId',
  'chatName',
  'userId',
  'userName',
  'threadId',
  'chatTopic',
  'userIdAlt',
  'chatIdAlt',
  'isBot',
  'guildId',
  'parentChatId',
  'messageId',
  'roleAuthorized',
);
const message = fieldsOf<MessageInput>()('role', 'content', 'name', 'toolCallId', 'toolCalls', 'metadata');
const usage = fieldsOf<TurnUsage>()('inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'lastPromptTokens', 'costUsd');
const deliverTo = fieldsOf<DeliveryTarget>()('platform', 'chatId', 'threadId');
const jobOrigin = fieldsOf<JobOrigin>()('platform', 'chatId', 'chatName', 'threadId', 'userId', 'sessionKey');
type WorkerEventOf<T extends WorkerEvent['type']> = Extract<WorkerEvent, { type: T }>;

export const ledgerOperations = {
  health: { method: 'GET', path: '/health', safeToRepeat: true },
  whoami: { method: 'GET', path: '/v1/whoami', safeToRepeat: true },
  ready: { method: 'GET', path: '/ready', safeToRepeat: true },

  resolveSession: {
    method: 'POST',
    path: '/v1/sessions/resolve',
    body: fieldsOf<ResolveRequest>()('source', 'forceNew', 'options', 'activity', 'gatewayId'),
    nested: { source, options: fieldsOf<ResolveOptions>()('groupSessionsPerUser', 'threadSessionsPerUser', 'agent', 'resetPolicy') },
    safeToRepeat: true,
  },
  getConversation: { method: 'GET', path: '/v1/conversations/{key}', safeToRepeat: true },
  // Sets a count: sending it twice is sending it once.
  updateConversation: {
    method: 'PATCH',
    path: '/v1/conversations/{key}',
    body: fieldsOf<UpdateConversationRequest>()('lastPromptTokens'),
    safeToRepeat: true,
  },
  resetConversation: {
    method: 'POST',
    path: '/v1/conversations/{key}/reset',
    body: fieldsOf<ResetRequest>()('keepRuntime', 'force', 'displayName'),
    safeToRepeat: false,
  },
  switchSession: { method: 'POST', path: '/v1/conversations/{key}/switch', body: fieldsOf<SwitchRequest>()('sessionId'), safeToRepeat: true },
  suspendConversation: {
    method: 'POST',
    path: '/v1/conversations/{key}/suspend',
    body: fieldsOf<SuspendRequest>()('reason', 'keepRuntime'),
    safeToRepeat: true,
  },
  markResumePending: { method: 'POST', path: '/v1/conversations/{key}/resume-pending', body: fieldsOf<ResumePendingRequest>()('reason'), safeToRepeat: true },
  clearResumePending: { method: 'DELETE', path: '/v1/conversations/{key}/resume-pending', safeToRepeat: true },
  conversationContext: { method: 'GET', path: '/v1/conversations/{key}/context', query: ['redactPii', 'connectedPlatforms', 'format'], safeToRepeat: true },
  conversationEvents: { method: 'GET', path: '/v1/conversations/{key}/events', query: ['fromRevision', 'limit'], safeToRepeat: true },

  enqueue: {
    method: 'POST',
    path: '/v1/conversations/{key}/queue',
    body: fieldsOf<EnqueueRequest>()('message', 'mode'),
    nested: { message: fieldsOf<QueuedMessageInput>()('id', 'text', 'media', 'sender', 'metadata') },
    safeToRepeat: false,
  },
  nextQueued: { method: 'POST', path: '/v1/conversations/{key}/queue/next', safeToRepeat: false },
  getQueue: { method: 'GET', path: '/v1/conversations/{key}/queue', safeToRepeat: true },

  recordTurn: {
    method: 'POST',
    path: '/v1/sessions/{id}/turns',
    body: fieldsOf<RecordTurnRequest>()('messages', 'usage', 'status', 'lease', 'strictToolResults'),
    nested: { messages: message, usage },
    safeToRepeat: false,
  },
  startTurn: { method: 'POST', path: '/v1/sessions/{id}/turns/start', safeToRepeat: false },
  getSession: { method: 'GET', path: '/v1/sessions/{id}', safeToRepeat: true },
  getTranscript: { method: 'GET', path: '/v1/sessions/{id}/transcript', query: ['includeDeleted', 'slot'], safeToRepeat: true },
  contextWindow: { method: 'GET', path: '/v1/sessions/{id}/context-window', query: fieldsOf<ContextWindowQuery>()('format', 'maxTokens'), safeToRepeat: true },
  rewriteTranscript: {
    method: 'PUT',
    path: '/v1/sessions/{id}/transcript',
    body: fieldsOf<RewriteTranscriptRequest>()('messages'),
    nested: { messages: message },
    safeToRepeat: false,
  },
  rewind: { method: 'POST', path: '/v1/sessions/{id}/rewind', body: fieldsOf<RewindRequest>()('turns'), safeToRepeat: false },
  createCheckpoint: { method: 'POST', path: '/v1/sessions/{id}/checkpoints', body: fieldsOf<CreateCheckpointRequest>()('label'), safeToRepeat: false },
  listCheckpoints: { method: 'GET', path: '/v1/sessions/{id}/checkpoints', query: ['before', 'limit'], safeToRepeat: true },
  rollback: { method: 'POST', path: '/v1/sessions/{id}/rollback', body: fieldsOf<RollbackRequest>()('checkpointId'), safeToRepeat: false },
  sessionState: { method: 'GET', path: '/v1/sessions/{id}/state', query: ['revision', 'at'], safeToRepeat: true },
  sessionEvents: { method: 'GET', path: '/v1/sessions/{id}/events', query: ['fromRevision', 'limit'], safeToRepeat: true },
  forkSession: { method: 'POST', path: '/v1/sessions/{id}/fork', body: fieldsOf<ForkRequest>()('checkpointId', 'agentName', 'metadata'), safeToRepeat: false },
  createChild: { method: 'POST', path: '/v1/sessions/{id}/children', body: fieldsOf<ChildRequest>()('agentName', 'metadata'), safeToRepeat: false },
  sessionTree: { method: 'GET', path: '/v1/sessions/{id}/tree', query: fieldsOf<SessionTreeQuery>()('limit', 'cursor', 'maxDepth'), safeToRepeat: true },
  listChildren: { method: 'GET', path: '/v1/sessions/{id}/children', query: fieldsOf<SessionChildrenQuery>()('limit', 'cursor'), safeToRepeat: true },
  sessionParent: { method: 'GET', path: '/v1/sessions/{id}/parent', safeToRepeat: true },
  destroySession: { method: 'DELETE', path: '/v1/sessions/{id}', query: fieldsOf<DestroySessionQuery>()('cascade'), safeToRepeat: true },
  sessionMemory: { method: 'GET', path: '/v1/sessions/{id}/memory', safeToRepeat: true },
  setMemory: { method: 'PUT', path: '/v1/sessions/{id}/memory/{name}', body: fieldsOf<SetMemoryRequest>()('value', 'metadata'), safeToRepeat: false },
  removeMemory: { method: 'DELETE', path: '/v1/sessions/{id}/memory/{name}', safeToRepeat: false },
  sessionSlots: { method: 'GET', path: '/v1/sessions/{id}/slots', safeToRepeat: true },
  createSlot: { method: 'POST', path: '/v1/sessions/{id}/slots', body: fieldsOf<CreateSlotRequest>()('name'), safeToRepeat: false },
  switchSlot: { method: 'POST', path: '/v1/sessions/{id}/slots/{name}/switch', safeToRepeat: true },

  putAgentSession: {
    method: 'PUT',
    path: '/v1/namespaces/{namespace}/sessions/{externalId}',
    body: fieldsOf<AgentSessionRequest>()('agentName', 'metadata'),
    safeToRepeat: true,
  },
  createAgentSession: {
    method: 'POST',
    path: '/v1/namespaces/{namespace}/sessions',
    body: fieldsOf<AgentSessionRequest>()('agentName', 'metadata'),
    safeToRepeat: false,
  },
  getAgentSession: { method: 'GET', path: '/v1/namespaces/{namespace}/sessions/{externalId}', safeToRepeat: true },
  deleteAgentSession: {
    method: 'DELETE',
    path: '/v1/namespaces/{namespace}/sessions/{externalId}',
    query: fieldsOf<DeleteAgentSessionQuery>()('cascade'),
    safeToRepeat: true,
  },
  listAgentSessions: {
    method: 'GET',
    path: '/v1/namespaces/{namespace}/sessions',
    query: fieldsOf<ListAgentSessionsQuery>()('limit', 'cursor', 'updatedAfter', 'updatedBefore', 'metadata'),
    safeToRepeat: true,
  },
  appendItems: {
    method: 'POST',
    path: '/v1/sessions/{id}/items',
    body: fieldsOf<AppendItemsRequest>()('items', 'idField', 'stateDelta', 'sharedStateDeltas'),
    nested: { sharedStateDeltas: fieldsOf<SharedStateDelta>()('namespace', 'stateId', 'delta') },
    safeToRepeat: false,
  },
  listItems: { method: 'GET', path: '/v1/sessions/{id}/items', query: fieldsOf<ItemsQuery>()('limit', 'before', 'after', 'revision'), safeToRepeat: true },
  getItem: { method: 'GET', path: '/v1/sessions/{id}/items/{itemId}', safeToRepeat: true },
  popItem: { method: 'POST', path: '/v1/sessions/{id}/items/pop', safeToRepeat: false },
  clearItems: { method: 'DELETE', path: '/v1/sessions/{id}/items', safeToRepeat: false },
  getSessionValues: { method: 'GET', path: '/v1/sessions/{id}/values', safeToRepeat: true },
  changeSessionValues: {
    method: 'PATCH',
    path: '/v1/sessions/{id}/values',
    body: fieldsOf<ChangeValuesRequest>()('delta', 'sharedStateDeltas'),
    nested: { sharedStateDeltas: fieldsOf<SharedStateDelta>()('namespace', 'stateId', 'delta') },
    safeToRepeat: false,
  },
  getSharedState: { method: 'GET', path: '/v1/namespaces/{namespace}/states/{stateId}', safeToRepeat: true },
  changeSharedState: {
    method: 'PATCH',
    path: '/v1/namespaces/{namespace}/states/{stateId}',
    body: fieldsOf<ChangeStateRequest>()('delta'),
    safeToRepeat: false,
  },

  gatewayStopping: {
    method: 'POST',
    path: '/v1/gateways/{gatewayId}/stopping',
    body: fieldsOf<GatewayStoppingRequest>()('activeKeys', 'mode'),
    safeToRepeat: true,
  },
  gatewayStopped: { method: 'POST', path: '/v1/gateways/{gatewayId}/stopped', body: fieldsOf<GatewayStoppedRequest>()('drainTimedOut'), safeToRepeat: true },
  gatewayStarted: {
    method: 'POST',
    path: '/v1/gateways/{gatewayId}/started',
    body: fieldsOf<GatewayStartedRequest>()('bootId', 'autoContinue'),
    safeToRepeat: true,
  },
  // The whole list replaces the last one: sending it twice is sending it once.
  gatewayPlatforms: {
    method: 'PUT',
    path: '/v1/gateways/{gatewayId}/platforms',
    body: fieldsOf<GatewayPlatformsRequest>()('platforms'),
    nested: { platforms: fieldsOf<GatewayPlatformInput>()('platform', 'displayName', 'homeChannel', 'piiSafe') },
    safeToRepeat: true,
  },

  listSessions: {
    method: 'GET',
    path: '/v1/sessions',
    query: fieldsOf<ListSessionsQuery>()('activeMinutes', 'platform', 'limit', 'cursor'),
    safeToRepeat: true,
  },
  sessionByKey: { method: 'GET', path: '/v1/conversations/{key}/entry', safeToRepeat: true },
  sessionRecord: { method: 'GET', path: '/v1/sessions/{id}/record', safeToRepeat: true },
  sessionCount: { method: 'GET', path: '/v1/session-count', query: fieldsOf<SessionCountQuery>()('atLeast'), safeToRepeat: true },
  exportSessionsJson: { method: 'GET', path: '/v1/export/sessions.json', safeToRepeat: true },

  createJob: {
    method: 'POST',
    path: '/v1/jobs',
    body: fieldsOf<CreateJobRequest>()(
      'id',
      'name',
      'description',
      'prompt',
      'skill',
      'schedule',
      'timeZone',
      'deliverTo',
      'origin',
      'model',
      'repeat',
      'enabled',
    ),
    nested: { deliverTo, origin: jobOrigin },
    safeToRepeat: false,
  },
  importJobs: { method: 'POST', path: '/v1/jobs/import', body: ['jobs'], safeToRepeat: true },
  listJobs: { method: 'GET', path: '/v1/jobs', query: ['enabled', 'limit', 'cursor'], safeToRepeat: true },
  getJob: { method: 'GET', path: '/v1/jobs/{id}', safeToRepeat: true },
  updateJob: {
    method: 'PATCH',
    path: '/v1/jobs/{id}',
    body: fieldsOf<UpdateJobRequest>()('name', 'description', 'prompt', 'skill', 'deliverTo', 'origin', 'model', 'repeat', 'schedule', 'timeZone', 'enabled'),
    nested: { deliverTo, origin: jobOrigin },
    safeToRepeat: false,
  },
  deleteJob: { method: 'DELETE', path: '/v1/jobs/{id}', safeToRepeat: true },
  fireJob: { method: 'POST', path: '/v1/jobs/{id}/fire', body: fieldsOf<FireJobRequest>()('slot'), safeToRepeat: false },
  reportRun: { method: 'POST', path: '/v1/jobs/{id}/runs/{fireId}', body: fieldsOf<ReportRunRequest>()('status', 'error'), safeToRepeat: true },

  runtimeTurn: {
    method: 'POST',
    path: '/v1/conversations/{key}/runtime/turns',
    body: fieldsOf<RuntimeTurnRequest>()('provider', 'model', 'input', 'newSession'),
    safeToRepeat: false,
  },
  newRuntime: {
    method: 'POST',
    path: '/v1/conversations/{key}/runtime/new',
    body: fieldsOf<NewRuntimeRequest>()('task', 'provider', 'model'),
    safeToRepeat: false,
  },
  detachRuntime: { method: 'POST', path: '/v1/conversations/{key}/runtime/detach', safeToRepeat: true },
  runtimeBinding: { method: 'GET', path: '/v1/conversations/{key}/runtime', safeToRepeat: true },
  runtimePending: { method: 'GET', path: '/v1/conversations/{key}/runtime/pending', safeToRepeat: true },
  reportWorkerEvent: {
    method: 'POST',
    path: '/v1/runtime-sessions/{id}/events',
    variants: {
      started: fieldsOf<WorkerEventOf<'started'>>()('type', 'turnId'),
      progress: fieldsOf<WorkerEventOf<'progress'>>()('type', 'turnId', 'message', 'details'),
      question: fieldsOf<WorkerEventOf<'question'>>()('type', 'turnId', 'questionId', 'details'),
      approval_request: fieldsOf<WorkerEventOf<'approval_request'>>()('type', 'turnId', 'approvalId', 'details'),
      approval_resolved: fieldsOf<WorkerEventOf<'approval_resolved'>>()('type', 'turnId', 'approvalId', 'decision', 'remember'),
      completed: fieldsOf<WorkerEventOf<'completed'>>()('type', 'turnId', 'output'),
      failed: fieldsOf<WorkerEventOf<'failed'>>()('type', 'turnId', 'error'),
    } satisfies Record<WorkerEvent['type'], readonly string[]>,
    safeToRepeat: false,
  },
  answerApproval: {
    method: 'POST',
    path: '/v1/runtime-sessions/{id}/approvals/{approvalId}',
    body: fieldsOf<ApprovalAnswerRequest>()('decision', 'remember'),
    safeToRepeat: false,
  },
  answerQuestion: {
    method: 'POST',
    path: '/v1/runtime-sessions/{id}/questions/{questionId}',
    body: fieldsOf<QuestionAnswerRequest>()('answer'),
    safeToRepeat: false,
  },
  getRuntimeSession: { method: 'GET', path: '/v1/runtime-sessions/{id}', safeToRepeat: true },

  search: {
    method: 'GET',
    path: '/v1/search',
    query: fieldsOf<SearchQuery>()(
      'q',
      'sessionKey',
      'sessionId',
      'platform',
      'role',
      'source',
      'since',
      'until',
      'limit',
      'cursor',
      'groupBy',
      'hitsPerSession',
      'includeDeleted',
      'includeRolledBack',
    ),
    safeToRepeat: true,
  },

  listProjections: { method: 'GET', path: '/v1/admin/projections', safeToRepeat: true },
  getProjection: { method: 'GET', path: '/v1/admin/projections/{name}', safeToRepeat: true },
  rebuildProjection: { method: 'POST', path: '/v1/admin/projections/{name}/rebuild', safeToRepeat: false },
  listStreams: { method: 'GET', path: '/v1/admin/streams', query: fieldsOf<StreamsQuery>()('category', 'limit', 'cursor'), safeToRepeat: true },
  pruneConversations: { method: 'POST', path: '/v1/admin/prune', body: fieldsOf<PruneRequest>()('maxAgeDays'), safeToRepeat: true },
  eraseConversation: { method: 'POST', path: '/v1/admin/erase', body: fieldsOf<EraseRequest>()('sessionKey', 'tenant'), safeToRepeat: true },
  applyRetention: {
    method: 'POST',
    path: '/v1/admin/retention',
    body: fieldsOf<RetentionRequest>()('dryRun', 'contentDays', 'contentDaysByPlatform', 'keepCheckpoints'),
    safeToRepeat: true,
  },

  lifecycleEvents: {
    method: 'GET',
    path: '/v1/events/stream',
    query: fieldsOf<EventStreamQuery>()('types', 'sessionKey', 'fromPosition'),
    safeToRepeat: true,
    stream: true,
  },
  jobFires: { method: 'GET', path: '/v1/jobs/fires/stream', query: fieldsOf<JobFiresQuery>()('from'), safeToRepeat: true, stream: true },
} as const satisfies Record<string, Operation>;

export type OperationName = keyof typeof ledgerOperations;
