// What each operation answers on success, by operation name: the client's methods return these, and the service's
// OpenAPI document takes its success response schemas from them (generated: see src/http/openApi/responseSchemas.json).
import type * as Api from './ledgerApiTypes.js';

export interface RewriteTranscriptResponse {
  messageCount: number;
  replacedCount: number;
  revision: number;
  position: number;
}

export interface CreateCheckpointResponse {
  checkpointId: string;
  revision: number;
  position: number;
}

export interface DeleteJobResponse {
  id: string;
  removed: boolean;
  revision: number;
  position: number;
}

export interface LedgerResponses {
  health: Api.HealthResponse;
  ready: Api.JsonObject;
  resolveSession: Api.ResolveResponse;
  getConversation: Api.ConversationResponse;
  resetConversation: Api.ConversationRuntimeEndResponse;
  switchSession: Api.ConversationChangeResponse;
  suspendConversation: Api.ConversationRuntimeEndResponse;
  markResumePending: Api.ConversationChangeResponse;
  clearResumePending: Api.ConversationChangeResponse;
  conversationContext: Api.ContextResponse;
  conversationEvents: Api.StreamEventsPage;
  enqueue: Api.EnqueueResponse;
  nextQueued: Api.DequeueResponse | null;
  getQueue: Api.QueueResponse;
  recordTurn: Api.RecordTurnResponse;
  startTurn: Api.StartTurnResponse;
  getSession: Api.SessionView;
  getTranscript: Api.TranscriptResponse;
  rewriteTranscript: RewriteTranscriptResponse;
  rewind: Api.RewindResponse;
  createCheckpoint: CreateCheckpointResponse;
  listCheckpoints: Api.CheckpointList;
  rollback: Api.RollbackResponse;
  sessionState: Api.SessionStateView;
  sessionEvents: Api.StreamEventsPage;
  gatewayStopping: Api.JsonObject & { position: number };
  gatewayStopped: Api.JsonObject & { position: number };
  gatewayStarted: Api.GatewayStartedResponse;
  listSessions: Api.SessionsPage;
  sessionByKey: Api.SessionEntry;
  sessionRecord: Api.SessionRecord;
  exportSessionsJson: Record<string, Api.JsonObject>;
  createJob: Api.JobView;
  importJobs: Api.ImportJobsResponse;
  listJobs: Api.JobsPage;
  getJob: Api.JobView;
  deleteJob: DeleteJobResponse;
  fireJob: Api.FireJobResponse;
  reportRun: Api.ReportRunResponse;
  forkSession: Api.ForkResponse;
  createChild: Api.ChildResponse;
  sessionTree: Api.SessionTreePage;
  sessionMemory: Api.SessionMemory;
  sessionSlots: Api.SessionSlots;
}
