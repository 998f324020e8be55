// Every error code the HTTP API answers, its status, and which operations can answer it: the OpenAPI document lists
// each operation's error responses from here. docs/api.md's code table and this catalog must agree (a unit test says so).

/** What an operation must look like to answer the code. */
export type ErrorScope =
  /** Any operation: authentication, overload, the store, malformed URLs. */
  | 'any'
  /** Operations that take a JSON body. */
  | 'body'
  /** Commands (every method but GET): they take an Idempotency-Key. */
  | 'write'
  /** Operations that take a query string or path parameters to validate. */
  | 'input'
  /** Queries of the read models (their `minPosition`). */
  | 'readModel'
  /** Operations whose path, or whose method and path (`PATCH /v1/…`), matches. */
  | RegExp
  /** The CLI only (`import hermes`, `serve`'s configuration), or the event store's internals: no HTTP operation. */
  | 'none';

export interface CatalogedError {
  status: number;
  scope: ErrorScope;
}

const sessions = /^\/v1\/sessions\/\{id\}/;
const conversations = /^\/v1\/conversations\/\{key\}/;
const writesToSessions =
  /^(\/v1\/(sessions\/(\{id\}\/(turns|transcript|rewind|rollback|checkpoints|memory|slots|children|fork|items|values)|resolve)|conversations\/\{key\}\/(runtime\/turns|reset|switch))|PATCH \/v1\/conversations\/\{key\}$)/;
/** Writes that report a turn's usage, or a part of it. */
const usageReports =
  /^(\/v1\/(sessions\/\{id\}\/turns|conversations\/\{key\}\/runtime\/turns|runtime-sessions\/\{id\}\/events)|PATCH \/v1\/conversations\/\{key\})$/;
const jobs = /^\/v1\/jobs/;
/** Writes that take If-Match: every write to one session's or one conversation's stream (see src/http/ifMatch.ts). */
const fencedWrites = /^(POST|PUT|PATCH|DELETE) \/v1\/(sessions\/\{id\}|conversations\/\{key\})(\/|$)/;
const items = /^\/v1\/sessions\/\{id\}\/items/;
const appendItems = /^\/v1\/sessions\/\{id\}\/items$/;
const agentSessions = /^\/v1\/namespaces\/\{namespace\}\/sessions/;
const sharedStates = /^\/v1\/namespaces\/\{namespace\}\/states\/\{stateId\}$/;
/** Writes that change key-value states: a delta each, shared states named in the body. */
const stateWrites = /^(POST \/v1\/sessions\/\{id\}\/items|PATCH \/v1\/sessions\/\{id\}\/values|PATCH \/v1\/namespaces\/\{namespace\}\/states\/\{stateId\})$/;
/** Writes that may change several streams at once. */
const multiStreamWrites = /^(POST \/v1\/sessions\/\{id\}\/items|PATCH \/v1\/sessions\/\{id\}\/values)$/;
const jobById = /^\/v1\/jobs\/\{id\}/;
const runtime = /^\/v1\/(runtime-sessions\/\{id\}|conversations\/\{key\}\/runtime)/;

export const errorCatalog: Record<string, CatalogedError> = {
  ALREADY_FIRED: { status: 409, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  APPEND_TOO_LARGE: { status: 400, scope: 'none' },
  APPROVAL_ALREADY_RESOLVED: { status: 409, scope: /\/approvals\/\{approvalId\}$/ },
  APPROVAL_NOT_FOUND: { status: 404, scope: /\/approvals\/\{approvalId\}$/ },
  ATOMIC_APPEND_NOT_SUPPORTED: { status: 501, scope: multiStreamWrites },
  BAD_REQUEST: { status: 400, scope: 'input' },
  CALLBACK_TOKEN_EXPIRED: { status: 401, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  CALLBACK_TOKEN_INVALID: { status: 401, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  CALLBACK_TOKEN_MISSING: { status: 401, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  CALLBACK_TOKEN_WRONG_JOB: { status: 401, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  CALLBACK_TOKEN_WRONG_SLOT: { status: 401, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  CHECKPOINT_CONTENT_EXPIRED: { status: 409, scope: /^\/v1\/sessions\/\{id\}\/(rollback|fork)$/ },
  CHECKPOINT_NOT_FOUND: { status: 404, scope: /^\/v1\/sessions\/\{id\}\/rollback$/ },
  CONVERSATION_NOT_FOUND: { status: 404, scope: conversations },
  CONVERSATION_SUSPENDED: { status: 409, scope: conversations },
  DATABASE_UNAVAILABLE: { status: 503, scope: 'any' },
  DATA_DIR_LOCKED: { status: 423, scope: 'none' },
  DUPLICATE_EVENT_ID: { status: 409, scope: 'none' },
  DUPLICATE_JOB_ID: { status: 400, scope: /^\/v1\/jobs\/import$/ },
  DUPLICATE_PLATFORM: { status: 400, scope: /^\/v1\/gateways\/\{gatewayId\}\/platforms$/ },
  EMPTY_APPEND: { status: 400, scope: 'none' },
  ERASURE_NOT_SUPPORTED: { status: 501, scope: /^\/v1\/admin\/(erase|retention)$/ },
  EVENT_LOG_HORIZON_HELD: { status: 503, scope: 'readModel' },
  EVENT_STORE_UNAVAILABLE: { status: 503, scope: 'any' },
  FIRE_NOT_FOUND: { status: 404, scope: /^\/v1\/jobs\/\{id\}\/runs\/\{fireId\}$/ },
  FORBIDDEN: { status: 403, scope: 'any' },
  HEADERS_TOO_LARGE: { status: 431, scope: 'any' },
  HERMES_HOME_EMPTY: { status: 400, scope: 'none' },
  HERMES_HOME_NOT_FOUND: { status: 400, scope: 'none' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, scope: 'write' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, scope: 'write' },
  IF_MATCH_NOT_SUPPORTED: { status: 400, scope: 'write' },
  INSUFFICIENT_SCOPE: { status: 403, scope: 'any' },
  INTERNAL_ERROR: { status: 500, scope: 'any' },
  INVALID_CURSOR: { status: 400, scope: /^\/v1\/(sessions|jobs|admin\/streams|search|namespaces\/\{namespace\}\/sessions)$/ },
  INVALID_ESDB_CONNECTION_STRING: { status: 400, scope: 'none' },
  INVALID_EVENT_ID: { status: 400, scope: 'none' },
  INVALID_EVENT_TYPE: { status: 400, scope: /^\/v1\/events\/stream$/ },
  INVALID_EXPECTED_REVISION: { status: 400, scope: 'none' },
  INVALID_EXTERNAL_ID: { status: 400, scope: agentSessions },
  INVALID_FIRE_ID: { status: 400, scope: /^\/v1\/jobs\/\{id\}\/runs\/\{fireId\}$/ },
  INVALID_GATEWAY_ID: { status: 400, scope: /^\/v1\/(gateways|sessions\/resolve)/ },
  INVALID_HERMES_EXPORT: { status: 400, scope: 'none' },
  INVALID_IDEMPOTENCY_KEY: { status: 400, scope: 'write' },
  INVALID_IF_MATCH: { status: 400, scope: fencedWrites },
  INVALID_ITEM_ID: { status: 400, scope: appendItems },
  INVALID_STATE_ID: { status: 400, scope: new RegExp(`${sharedStates.source}|${stateWrites.source}`) },
  INVALID_JOB_ID: { status: 400, scope: jobs },
  INVALID_LAST_EVENT_ID: { status: 400, scope: /\/stream$/ },
  INVALID_MEMORY_NAME: { status: 400, scope: /^\/v1\/sessions\/\{id\}\/memory/ },
  INVALID_METADATA_FILTER: { status: 400, scope: agentSessions },
  INVALID_MIN_POSITION: { status: 400, scope: 'readModel' },
  INVALID_NAMESPACE: { status: 400, scope: new RegExp(`${agentSessions.source}|${sharedStates.source}|${stateWrites.source}`) },
  INVALID_RUNTIME_SESSION_ID: { status: 400, scope: /^\/v1\/runtime-sessions/ },
  INVALID_SCHEDULE: { status: 400, scope: jobs },
  INVALID_SESSION_ID: { status: 400, scope: sessions },
  INVALID_SESSION_KEY: { status: 400, scope: /\{key\}/ },
  INVALID_SLOT_NAME: { status: 400, scope: /^\/v1\/sessions\/\{id\}\/slots/ },
  INVALID_STREAM_NAME: { status: 400, scope: /^\/v1\/admin\/streams$/ },
  INVALID_TIME_ZONE: { status: 400, scope: jobs },
  ITEM_HISTORY_CONTENDED: { status: 409, scope: new RegExp(`${items.source}|${stateWrites.source}`) },
  ITEM_NOT_FOUND: { status: 404, scope: items },
  ITEM_NOT_OBJECT: { status: 400, scope: appendItems },
  ITEM_TOO_LARGE: { status: 413, scope: appendItems },
  JOB_COMPLETED: { status: 409, scope: jobById },
  JOB_EXISTS: { status: 409, scope: /^\/v1\/jobs$/ },
  JOB_NEEDS_PROMPT_OR_SKILL: { status: 400, scope: jobs },
  JOB_NOT_FOUND: { status: 404, scope: jobById },
  JOB_PAUSED: { status: 409, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  JSON_TOO_DEEP: { status: 400, scope: 'body' },
  LEASE_LOST: { status: 409, scope: /^\/v1\/sessions\/\{id\}\/turns$/ },
  MALFORMED_JSON: { status: 400, scope: 'body' },
  MALFORMED_REQUEST: { status: 400, scope: 'any' },
  MALFORMED_URI: { status: 400, scope: 'any' },
  MEMORY_ENTRY_NOT_FOUND: { status: 404, scope: /^\/v1\/sessions\/\{id\}\/memory\/\{name\}$/ },
  MESSAGE_TOO_LARGE: { status: 413, scope: writesToSessions },
  METHOD_NOT_ALLOWED: { status: 405, scope: 'none' },
  NOT_ACCEPTABLE: { status: 406, scope: 'any' },
  NO_TURN_IN_FLIGHT: { status: 409, scope: runtime },
  PAYLOAD_TOO_LARGE: { status: 413, scope: 'body' },
  PROJECTION_NOT_CAUGHT_UP: { status: 503, scope: 'readModel' },
  PRECONDITION_FAILED: { status: 412, scope: fencedWrites },
  PROJECTION_NOT_FOUND: { status: 404, scope: /^\/v1\/admin\/projections\/\{name\}/ },
  PROJECTION_STREAM_PARKED: { status: 503, scope: /^\/v1\/(sessions\/\{id\}\/record|conversations\/\{key\}\/entry|search)$/ },
  PROVIDER_REQUIRED: { status: 400, scope: runtime },
  QUESTION_ALREADY_ANSWERED: { status: 409, scope: /\/questions\/\{questionId\}$/ },
  QUESTION_NOT_FOUND: { status: 404, scope: /\/questions\/\{questionId\}$/ },
  QUEUE_FULL: { status: 429, scope: /^\/v1\/conversations\/\{key\}\/queue$/ },
  REQUEST_TIMEOUT: { status: 408, scope: 'any' },
  RETENTION_POLICY_EMPTY: { status: 400, scope: /^\/v1\/admin\/retention$/ },
  REVISION_NOT_FOUND: { status: 404, scope: /^\/v1\/sessions\/\{id\}\/state$/ },
  ROUTE_NOT_FOUND: { status: 404, scope: 'none' },
  RUNTIME_BUSY: { status: 409, scope: runtime },
  RUNTIME_INTERRUPTED: { status: 409, scope: runtime },
  RUNTIME_SESSION_NOT_FOUND: { status: 404, scope: runtime },
  RUN_ALREADY_REPORTED: { status: 409, scope: /^\/v1\/jobs\/\{id\}\/runs\/\{fireId\}$/ },
  SCHEDULE_IN_PAST: { status: 400, scope: jobs },
  SCHEDULE_NEVER_RUNS: { status: 400, scope: jobs },
  SEARCH_QUERY_HAS_NO_TERMS: { status: 400, scope: /^\/v1\/search$/ },
  SESSION_DESTROYED: { status: 409, scope: /^(\/v1\/sessions\/\{id\}|PATCH \/v1\/conversations\/\{key\}$)/ },
  SESSION_ENDED: { status: 409, scope: writesToSessions },
  SESSION_IN_USE: { status: 409, scope: sessions },
  SESSION_NOT_FOUND: {
    status: 404,
    scope: /^\/v1\/(sessions\/\{id\}|conversations\/\{key\}\/(switch|runtime)|namespaces\/\{namespace\}\/sessions\/\{externalId\})/,
  },
  SESSION_USAGE_FULL: { status: 409, scope: /^\/v1\/(sessions\/\{id\}\/turns|conversations\/\{key\}\/runtime\/turns|runtime-sessions\/\{id\}\/events)$/ },
  SLOT_EXISTS: { status: 409, scope: /^\/v1\/sessions\/\{id\}\/slots$/ },
  SLOT_NOT_DUE: { status: 409, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  SLOT_NOT_FOUND: { status: 404, scope: /^\/v1\/sessions\/\{id\}\/slots\/\{name\}/ },
  SLOT_NOT_SCHEDULED: { status: 400, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  SLOT_PASSED: { status: 409, scope: /^\/v1\/jobs\/\{id\}\/fire$/ },
  STATE_DELTA_TOO_LARGE: { status: 413, scope: stateWrites },
  STREAM_NOT_FOUND: { status: 404, scope: /\/events$/ },
  TOOL_RESULT_MISMATCH: { status: 400, scope: /^\/v1\/sessions\/\{id\}\/turns$/ },
  TOO_MANY_CHILDREN: { status: 409, scope: /^\/v1\/sessions\/\{id\}\/(children|fork)$/ },
  TOO_MANY_DELETED_SESSIONS: { status: 409, scope: agentSessions },
  TOO_MANY_EVENT_STREAMS: { status: 429, scope: /\/stream$/ },
  TOO_MANY_ITEMS: { status: 413, scope: appendItems },
  TOO_MANY_MESSAGES: { status: 413, scope: writesToSessions },
  TOO_MANY_REQUESTS: { status: 429, scope: 'any' },
  TRANSCRIPT_FULL: { status: 409, scope: writesToSessions },
  TREE_TOO_DEEP: { status: 409, scope: /^\/v1\/sessions\/\{id\}\/(children|fork)$/ },
  TURN_IN_FLIGHT: { status: 409, scope: writesToSessions },
  TURN_USAGE_TOO_LARGE: { status: 400, scope: usageReports },
  TURN_MISMATCH: { status: 409, scope: /^\/v1\/(sessions\/\{id\}\/turns|runtime-sessions)/ },
  UNAUTHORIZED: { status: 401, scope: 'any' },
  UNKNOWN_EVENT_TYPE: { status: 400, scope: /^\/v1\/events\/stream$/ },
  UNSUPPORTED_CHARACTER: { status: 400, scope: 'any' },
  UNSUPPORTED_ENCODING: { status: 415, scope: 'body' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, scope: 'body' },
  VALIDATION_FAILED: { status: 400, scope: 'input' },
  WRONG_EXPECTED_REVISION: { status: 409, scope: 'none' },
};

export interface OperationShape {
  method: string;
  path: string;
  hasBody: boolean;
  hasInput: boolean;
  readsReadModel: boolean;
}

/** The codes an operation can answer, by status. */
export function errorCodesOf(operation: OperationShape): Map<number, string[]> {
  const byStatus = new Map<number, string[]>();
  for (const [code, { status, scope }] of Object.entries(errorCatalog)) {
    const applies =
      scope === 'any' ||
      (scope === 'body' && operation.hasBody) ||
      (scope === 'write' && operation.method !== 'get') ||
      (scope === 'input' && (operation.hasBody || operation.hasInput)) ||
      (scope === 'readModel' && operation.readsReadModel) ||
      (scope instanceof RegExp && (scope.test(operation.path) || scope.test(`${operation.method.toUpperCase()} ${operation.path}`)));
    if (!applies) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}
