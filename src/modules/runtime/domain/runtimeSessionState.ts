// A runtime session's state: a union by status, what every status holds, and the refusal of one that does not exist.
import { NotFoundError } from '../../../errors/ledgerError.js';
import type { JsonObject } from '../../../events/eventStore.js';
import type { ApprovalDecision, ApprovalMemory, InterruptReason, Responder } from '../../../events/runtime/runtimeSessionEvents.js';

/** starting: a turn was accepted and the worker has not reported yet; interrupted: its last turn was cut off (restart, silence). */
export type RuntimeStatus = 'absent' | 'starting' | 'running' | 'waiting_user' | 'waiting_approval' | 'idle' | 'interrupted';

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
  by: Responder;
  resolvedAt: string;
}

export interface AnsweredQuestion extends PendingQuestion {
  answer: string;
  by: Responder;
  answeredAt: string;
}

export interface TurnRecord {
  turnId: string;
  input: string;
  status: 'in_flight' | 'completed' | 'failed' | 'interrupted';
  startedAt: string;
  endedAt: string | null;
  error: string | null;
}

export interface RuntimeError {
  kind: 'turn_failed' | 'interrupted';
  reason: InterruptReason | 'worker_reported';
  message: string;
  turnId: string | null;
  at: string;
}

/** An interrupt asked of the turn in flight, until that turn ends. */
export interface RequestedInterrupt {
  turnId: string;
  messageId: string;
  requestedAt: string;
}

/** What every runtime session state holds, absent or not. */
interface RuntimeSessionStateFields {
  currentTurnId: string | null;
  turnCount: number;
  /** The most recent turns, newest last (older ones stay in the stream). */
  recentTurns: TurnRecord[];
  pendingApprovals: PendingApproval[];
  pendingQuestions: PendingQuestion[];
  /** The most recent answered waits, newest last: a resumed worker reads decisions made while it was away here. */
  resolvedApprovals: ResolvedApproval[];
  answeredQuestions: AnsweredQuestion[];
  /** When the worker last reported (or the turn was accepted): the heartbeat the watchdog checks. */
  lastWorkerEventAt: string | null;
  lastError: RuntimeError | null;
  /** Set while the turn in flight has been asked to stop (InterruptRequested); cleared when it ends. */
  interruptRequested: RequestedInterrupt | null;
}

/** A runtime stream with no RuntimeSessionStarted (yet). */
export interface AbsentRuntimeSession extends RuntimeSessionStateFields {
  status: 'absent';
  runtimeSessionId: null;
  provider: null;
  model: null;
  sessionKey: null;
  createdAt: null;
  updatedAt: null;
}

/** What RuntimeSessionStarted set stays set. */
export interface ExistingRuntimeSession extends RuntimeSessionStateFields {
  status: Exclude<RuntimeStatus, 'absent'>;
  runtimeSessionId: string;
  provider: string;
  model: string;
  sessionKey: string;
  createdAt: string;
  updatedAt: string;
}

/** A union by status, like the session's: every variant holds the same keys in the same order (initialRuntimeSessionState). */
export type RuntimeSessionState = AbsentRuntimeSession | ExistingRuntimeSession;

export const RECENT_LIMIT = 20;

export const initialRuntimeSessionState = (): RuntimeSessionState => ({
  status: 'absent',
  runtimeSessionId: null,
  provider: null,
  model: null,
  sessionKey: null,
  createdAt: null,
  updatedAt: null,
  currentTurnId: null,
  turnCount: 0,
  recentTurns: [],
  pendingApprovals: [],
  pendingQuestions: [],
  resolvedApprovals: [],
  answeredQuestions: [],
  lastWorkerEventAt: null,
  lastError: null,
  interruptRequested: null,
});

export type WorkerReport =
  | { type: 'started' }
  | { type: 'progress'; message: string | null; details: JsonObject }
  | { type: 'question'; questionId: string; details: JsonObject }
  | { type: 'approval_request'; approvalId: string; details: JsonObject }
  | { type: 'approval_resolved'; approvalId: string; decision: ApprovalDecision; remember: ApprovalMemory }
  | { type: 'completed'; output: JsonObject }
  | { type: 'failed'; error: string };

export const turnInFlight = (state: RuntimeSessionState): boolean => state.currentTurnId !== null;

export function runtimeSessionNotFound(runtimeSessionId?: string): NotFoundError {
  return new NotFoundError('RUNTIME_SESSION_NOT_FOUND', 'no runtime session has this id', runtimeSessionId ? { runtimeSessionId } : undefined);
}
