// The runtime API's shapes as the typed client sends and receives them: a conversation's binding to an agent runtime
// session (turns, /new, /detach, pending waits) and the worker's side (reports, answers to approvals and questions).
import type { JsonObject } from './ledgerApiTypes.js';

/** A runtime session's own state; `interrupted`: its last turn was cut off (a restart, a silent worker). */
export type RuntimeStatus = 'starting' | 'running' | 'waiting_user' | 'waiting_approval' | 'idle' | 'interrupted';
/** The conversation ↔ runtime states (CliGate's). */
export type RuntimeBindingStatus = 'unbound' | 'idle' | 'running' | 'waiting_user' | 'waiting_approval';
/** Why a runtime session was bound: the first turn, provider/model drift, `/new`, `/new <task>`. */
export type RuntimeBindReason = 'new' | 'drift' | 'new_command' | 'task';
export type ApprovalDecision = 'allow' | 'deny';
/** How long an approval's answer holds: this once, the runtime session, or the whole conversation. */
export type ApprovalMemory = 'none' | 'session' | 'conversation';
/** Who answered a wait: the worker itself (from its report) or a person through the API. */
export type WaitResponder = 'worker' | 'user';

export interface RuntimeTurnRequest {
  /** codex, claude, …: 1-64 of a-z 0-9 . _ - */
  provider: string;
  model: string;
  input: string;
  /** Start a new runtime session even when the bound one matches. */
  newSession?: boolean;
}

/** `/new` (nothing: unbind) or `/new [provider] <task>` (bind a new runtime session and start the task on it). */
export interface NewRuntimeRequest {
  task?: string;
  provider?: string;
  model?: string;
}

export interface RuntimeTurnResponse {
  sessionKey: string;
  runtimeSessionId: string;
  turnId: string;
  provider: string;
  model: string;
  /** Whether this turn started a new runtime session, and why (`reused` when it did not). */
  newSession: boolean;
  reason: RuntimeBindReason | 'reused';
  previousRuntimeSessionId: string | null;
  /** The drift status note, when the binding changed because of drift. */
  note: string | null;
  /** The runtime session's state came from the service's memory (warm), the store (resumed), or was created (cold). */
  state: 'warm' | 'resumed' | 'cold';
  bindingState: RuntimeBindingStatus;
  runtimeState: RuntimeStatus;
  position: number;
}

export interface RuntimeDetachResponse {
  sessionKey: string;
  state: 'unbound';
  /** The runtime session unbound; null when none was. */
  detachedRuntimeSessionId: string | null;
  changed: boolean;
  position: number;
}

export interface RuntimeError {
  kind: 'turn_failed' | 'interrupted';
  reason: 'service_restart' | 'heartbeat_timeout' | 'conversation_reset' | 'worker_reported';
  message: string;
  turnId: string | null;
  at: string;
}

/** The turn in flight was asked to stop by an interrupting message; the worker reports `failed` or `completed`. */
export interface RequestedInterrupt {
  turnId: string;
  messageId: string;
  requestedAt: string;
}

export interface RuntimeBindingView {
  sessionKey: string;
  state: RuntimeBindingStatus;
  runtimeSessionId: string | null;
  provider: string | null;
  model: string | null;
  reason: RuntimeBindReason | null;
  boundAt: string | null;
  /** The runtime session bound before the current one (or before the detach). */
  previousRuntimeSessionId: string | null;
  /** The latest drift note, kept after later rebinds. */
  note: { note: string; runtimeSessionId: string; at: string } | null;
  /** The bound runtime session in brief; null when unbound. */
  runtime: {
    state: RuntimeStatus;
    currentTurnId: string | null;
    turnCount: number;
    pendingApprovals: number;
    pendingQuestions: number;
    lastError: RuntimeError | null;
    interruptRequested: RequestedInterrupt | null;
  } | null;
  revision: number;
  position: number;
}

export interface PendingApproval {
  approvalId: string;
  turnId: string;
  details: JsonObject;
  requestedAt: string;
}

export interface PendingQuestion {
  questionId: string;
  turnId: string;
  details: JsonObject;
  askedAt: string;
}

export interface ResolvedApproval extends PendingApproval {
  decision: ApprovalDecision;
  remember: ApprovalMemory;
  by: WaitResponder;
  resolvedAt: string;
}

export interface AnsweredQuestion extends PendingQuestion {
  answer: string;
  by: WaitResponder;
  answeredAt: string;
}

export interface RuntimePendingResponse {
  sessionKey: string;
  runtimeSessionId: string | null;
  runtimeState: RuntimeStatus | null;
  approvals: PendingApproval[];
  questions: PendingQuestion[];
  position: number;
}

export interface RuntimeTurnRecord {
  turnId: string;
  input: string;
  status: 'in_flight' | 'completed' | 'failed' | 'interrupted';
  startedAt: string;
  endedAt: string | null;
  error: string | null;
}

export interface RuntimeSessionView {
  runtimeSessionId: string;
  provider: string;
  model: string;
  state: RuntimeStatus;
  /** The conversation that started it. */
  sessionKey: string;
  /** That conversation while it is still bound to this session, else empty. */
  boundConversations: string[];
  createdAt: string;
  updatedAt: string;
  /** The heartbeat the watchdog checks. */
  lastWorkerEventAt: string | null;
  currentTurnId: string | null;
  turnCount: number;
  /** The most recent turns, newest last. */
  turns: RuntimeTurnRecord[];
  lastError: RuntimeError | null;
  interruptRequested: RequestedInterrupt | null;
  pendingApprovals: PendingApproval[];
  pendingQuestions: PendingQuestion[];
  /** The most recent answered waits, newest last: a resumed worker reads decisions made while it was away here. */
  resolvedApprovals: ResolvedApproval[];
  answeredQuestions: AnsweredQuestion[];
  revision: number;
  position: number;
}

/** What the worker reports about a turn (POST /v1/runtime-sessions/{id}/events); turnId defaults to the current turn. */
export type WorkerEvent =
  | { type: 'started'; turnId?: string }
  | { type: 'progress'; turnId?: string; message?: string | null; details?: JsonObject }
  | { type: 'question'; turnId?: string; questionId: string; details?: JsonObject }
  | { type: 'approval_request'; turnId?: string; approvalId: string; details?: JsonObject }
  | { type: 'approval_resolved'; turnId?: string; approvalId: string; decision: ApprovalDecision; remember?: ApprovalMemory }
  | { type: 'completed'; turnId?: string; output?: JsonObject }
  | { type: 'failed'; turnId?: string; error: string };

export interface WorkerEventResponse {
  runtimeSessionId: string;
  state: RuntimeStatus;
  currentTurnId: string | null;
  /** A worker that reports learns here that its turn was asked to stop. */
  interruptRequested: RequestedInterrupt | null;
  /** false when the report repeated one already recorded. */
  changed: boolean;
  revision: number;
  position: number;
}

export interface ApprovalAnswerRequest {
  decision: ApprovalDecision;
  remember?: ApprovalMemory;
}

export interface ApprovalAnswerResponse {
  runtimeSessionId: string;
  approvalId: string;
  decision: ApprovalDecision;
  remember: ApprovalMemory;
  state: RuntimeStatus;
  changed: boolean;
  revision: number;
  position: number;
}

export interface QuestionAnswerRequest {
  answer: string;
}

export interface QuestionAnswerResponse {
  runtimeSessionId: string;
  questionId: string;
  state: RuntimeStatus;
  changed: boolean;
  revision: number;
  position: number;
}
