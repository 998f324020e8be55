// What each operation answers on success, by operation name: the client's methods return these, and the service's
// OpenAPI document takes its success response schemas from them (generated: see src/http/openApi/generated/responseSchemas.ts).
import type * as Admin from './adminApiTypes.js';
import type * as Agent from './agentSessionApiTypes.js';
import type * as Api from './ledgerApiTypes.js';
import type { ContextWindowResponse } from './contextWindowApiTypes.js';
import type * as Runtime from './runtimeApiTypes.js';
import type * as Search from './searchApiTypes.js';

export interface RewriteTranscriptResponse {
  messageCount: number;
  replacedCount: number;
  revision: number;
  position: number;
}

export interface CreateCheckpointResponse {
  checkpointId: string;
  label: string | null;
  /** The revision whose state the checkpoint names. */
  revision: number;
  /** The turns recorded when it was taken. */
  turnIndex: number;
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
  whoami: Api.WhoamiResponse;
  ready: Api.ReadyResponse;
  resolveSession: Api.ResolveResponse;
  getConversation: Api.ConversationResponse;
  updateConversation: Api.UpdateConversationResponse;
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
  contextWindow: ContextWindowResponse;
  rewriteTranscript: RewriteTranscriptResponse;
  rewind: Api.RewindResponse;
  createCheckpoint: CreateCheckpointResponse;
  listCheckpoints: Api.CheckpointList;
  rollback: Api.RollbackResponse;
  sessionState: Api.SessionStateView;
  sessionEvents: Api.StreamEventsPage;
  gatewayStopping: Api.GatewayStoppingResponse;
  gatewayStopped: Api.GatewayStoppedResponse;
  gatewayStarted: Api.GatewayStartedResponse;
  gatewayPlatforms: Api.GatewayPlatformsResponse;
  listSessions: Api.SessionsPage;
  sessionByKey: Api.SessionEntry;
  sessionRecord: Api.SessionRecord;
  sessionCount: Api.SessionCountResponse;
  exportSessionsJson: Record<string, Api.HermesSessionEntry>;
  createJob: Api.JobWritten;
  importJobs: Api.ImportJobsResponse;
  listJobs: Api.JobsPage;
  getJob: Api.JobDetail;
  updateJob: Api.UpdateJobResponse;
  deleteJob: DeleteJobResponse;
  fireJob: Api.FireJobResponse;
  reportRun: Api.ReportRunResponse;
  forkSession: Api.ForkResponse;
  createChild: Api.ChildResponse;
  sessionTree: Api.SessionTreePage;
  listChildren: Api.SessionChildrenPage;
  sessionParent: Api.SessionParent;
  destroySession: Api.DestroySessionResponse;
  putAgentSession: Agent.CreatedAgentSession;
  createAgentSession: Agent.CreatedAgentSession;
  getAgentSession: Agent.AgentSession;
  deleteAgentSession: Agent.DeleteAgentSessionResponse;
  listAgentSessions: Agent.AgentSessionsPage;
  appendItems: Agent.AppendItemsResponse;
  listItems: Agent.ItemsPage;
  getItem: Agent.ItemResponse;
  popItem: Agent.PopItemResponse;
  clearItems: Agent.ClearItemsResponse;
  getSessionValues: Agent.SessionValues;
  changeSessionValues: Agent.SessionValues;
  getSharedState: Agent.SharedState;
  changeSharedState: Agent.SharedState;
  sessionMemory: Api.SessionMemory;
  setMemory: Api.SetMemoryResponse;
  removeMemory: Api.RemoveMemoryResponse;
  sessionSlots: Api.SessionSlots;
  createSlot: Api.CreateSlotResponse;
  switchSlot: Api.SwitchSlotResponse;
  runtimeTurn: Runtime.RuntimeTurnResponse;
  /** With a task: the turn it started; without: the detach. */
  newRuntime: Runtime.RuntimeTurnResponse | Runtime.RuntimeDetachResponse;
  detachRuntime: Runtime.RuntimeDetachResponse;
  runtimeBinding: Runtime.RuntimeBindingView;
  runtimePending: Runtime.RuntimePendingResponse;
  reportWorkerEvent: Runtime.WorkerEventResponse;
  answerApproval: Runtime.ApprovalAnswerResponse;
  answerQuestion: Runtime.QuestionAnswerResponse;
  getRuntimeSession: Runtime.RuntimeSessionView;
  /** Hits one by one, or with groupBy=session the best sessions with their best hits. */
  search: Search.SearchHitsPage | Search.SearchSessionsPage;
  listProjections: Admin.ProjectionsResponse;
  getProjection: Admin.ProjectionStatus;
  rebuildProjection: Admin.ProjectionStatus;
  listStreams: Admin.StreamsPage;
  pruneConversations: Admin.PruneResponse;
  eraseConversation: Admin.EraseResponse;
  applyRetention: Admin.RetentionResponse;
}
