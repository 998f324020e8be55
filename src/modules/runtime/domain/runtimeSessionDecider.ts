// The runtime session decider: one agent thread's turns, waits (questions, approvals) and interruptions, as pure decide/evolve.
import { ConflictError, NotFoundError } from '../../../errors/ledgerError.js';
import { type Decider, unknownEventType } from '../../../events/decider.js';
import type { JsonObject } from '../../../events/eventStore.js';
import type { ApprovalDecision, ApprovalMemory, InterruptReason, Responder, RuntimeSessionEvent } from '../../../events/runtime/runtimeSessionEvents.js';

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

export type RuntimeSessionCommand =
  | { type: 'StartTurn'; runtimeSessionId: string; sessionKey: string; provider: string; model: string; input: string; now: string }
  | { type: 'ReportWorkerEvent'; report: WorkerReport; turnId: string | null; now: string }
  | { type: 'ResolveApproval'; approvalId: string; decision: ApprovalDecision; remember: ApprovalMemory; now: string }
  | { type: 'AnswerQuestion'; questionId: string; answer: string; now: string }
  /**
   * Interrupts the turn in flight unless the worker reported at or after `quietSince` (it is alive after all);
   * `quietSince: null` interrupts it whatever the worker last said (a forced reset).
   */
  | { type: 'Interrupt'; reason: InterruptReason; error: string; quietSince: string | null; now: string }
  /** A message queued to interrupt: asks the turn in flight to stop (once per turn); nothing when none runs. */
  /** `turnId`: the turn running when the message arrived; a later turn is not the one it interrupts. */
  | { type: 'RequestInterrupt'; messageId: string; turnId?: string; now: string };

const keepRecent = <T>(items: T[]): T[] => items.slice(-RECENT_LIMIT);

const turnInFlight = (state: RuntimeSessionState): boolean => state.currentTurnId !== null;

/** Where a turn in flight stands once its waits change: approvals first, then questions, else running. */
function waitingStatus(state: RuntimeSessionState): ExistingRuntimeSession['status'] {
  const current = state.currentTurnId;
  if (state.pendingApprovals.some((approval) => approval.turnId === current)) return 'waiting_approval';
  if (state.pendingQuestions.some((question) => question.turnId === current)) return 'waiting_user';
  return 'running';
}

function endTurn(state: RuntimeSessionState, turnId: string, status: TurnRecord['status'], at: string, error: string | null): TurnRecord[] {
  return state.recentTurns.map((turn) => (turn.turnId === turnId ? { ...turn, status, endedAt: at, error } : turn));
}

export function evolveRuntimeSession(state: RuntimeSessionState, event: RuntimeSessionEvent): RuntimeSessionState {
  if (event.type === 'RuntimeSessionStarted') {
    const { runtimeSessionId, provider, model, sessionKey, at } = event.data;
    return { ...initialRuntimeSessionState(), status: 'idle', runtimeSessionId, provider, model, sessionKey, createdAt: at, updatedAt: at };
  }
  // Every other event follows RuntimeSessionStarted in its stream (decideRuntimeSession writes nothing else for an absent one).
  if (state.status === 'absent') return state;
  return evolveExistingRuntimeSession(state, event);
}

function evolveExistingRuntimeSession(
  state: ExistingRuntimeSession,
  event: Exclude<RuntimeSessionEvent, { type: 'RuntimeSessionStarted' }>,
): ExistingRuntimeSession {
  switch (event.type) {
    case 'TurnStarted': {
      const { turnId, input, at } = event.data;
      const turn: TurnRecord = { turnId, input, status: 'in_flight', startedAt: at, endedAt: null, error: null };
      return {
        ...state,
        status: 'starting',
        currentTurnId: turnId,
        turnCount: state.turnCount + 1,
        recentTurns: keepRecent([...state.recentTurns, turn]),
        lastWorkerEventAt: at,
        updatedAt: at,
        interruptRequested: null,
      };
    }
    case 'RuntimeRunning':
      return { ...state, status: waitingStatus(state), lastWorkerEventAt: event.data.at, updatedAt: event.data.at };
    case 'RuntimeProgress':
      return { ...state, status: state.status === 'starting' ? 'running' : state.status, lastWorkerEventAt: event.data.at, updatedAt: event.data.at };
    case 'QuestionAsked': {
      const { turnId, questionId, details, at } = event.data;
      const next = {
        ...state,
        pendingQuestions: [...state.pendingQuestions, { questionId, turnId, details, askedAt: at }],
        lastWorkerEventAt: at,
        updatedAt: at,
      };
      return { ...next, status: waitingStatus(next) };
    }
    case 'ApprovalRequested': {
      const { turnId, approvalId, details, at } = event.data;
      const next = {
        ...state,
        pendingApprovals: [...state.pendingApprovals, { approvalId, turnId, details, requestedAt: at }],
        lastWorkerEventAt: at,
        updatedAt: at,
      };
      return { ...next, status: waitingStatus(next) };
    }
    case 'QuestionAnswered': {
      const { questionId, answer, by, at } = event.data;
      const question = state.pendingQuestions.find((pending) => pending.questionId === questionId);
      if (!question) return state;
      const next = {
        ...state,
        pendingQuestions: state.pendingQuestions.filter((pending) => pending.questionId !== questionId),
        answeredQuestions: keepRecent([...state.answeredQuestions, { ...question, answer, by, answeredAt: at }]),
        lastWorkerEventAt: by === 'worker' ? at : state.lastWorkerEventAt,
        updatedAt: at,
      };
      return { ...next, status: turnInFlight(next) ? waitingStatus(next) : next.status };
    }
    case 'ApprovalResolved': {
      const { approvalId, decision, remember, by, at } = event.data;
      const approval = state.pendingApprovals.find((pending) => pending.approvalId === approvalId);
      if (!approval) return state;
      const next = {
        ...state,
        pendingApprovals: state.pendingApprovals.filter((pending) => pending.approvalId !== approvalId),
        resolvedApprovals: keepRecent([...state.resolvedApprovals, { ...approval, decision, remember, by, resolvedAt: at }]),
        lastWorkerEventAt: by === 'worker' ? at : state.lastWorkerEventAt,
        updatedAt: at,
      };
      return { ...next, status: turnInFlight(next) ? waitingStatus(next) : next.status };
    }
    case 'TurnCompleted':
    case 'TurnFailed': {
      const { turnId, at } = event.data;
      const error = event.type === 'TurnFailed' ? event.data.error : null;
      return {
        ...state,
        status: 'idle',
        currentTurnId: null,
        recentTurns: endTurn(state, turnId, event.type === 'TurnFailed' ? 'failed' : 'completed', at, error),
        // The sticky rule: the end of a turn clears its waits, nothing else.
        pendingApprovals: [],
        pendingQuestions: [],
        lastWorkerEventAt: at,
        lastError: error === null ? state.lastError : { kind: 'turn_failed', reason: 'worker_reported', message: error, turnId, at },
        updatedAt: at,
        interruptRequested: null,
      };
    }
    case 'RuntimeInterrupted': {
      const { turnId, reason, error, at } = event.data;
      return {
        ...state,
        status: 'interrupted',
        currentTurnId: null,
        recentTurns: turnId ? endTurn(state, turnId, 'interrupted', at, error) : state.recentTurns,
        // Waits stay answerable across an interruption: the resumed worker picks the answers up.
        lastError: { kind: 'interrupted', reason, message: error, turnId, at },
        updatedAt: at,
        interruptRequested: null,
      };
    }
    case 'InterruptRequested': {
      // Not a worker event: the heartbeat still counts from the worker's last report.
      const { turnId, messageId, at } = event.data;
      return { ...state, interruptRequested: { turnId, messageId, requestedAt: at }, updatedAt: at };
    }
    default:
      return unknownEventType(event, state);
  }
}

export function runtimeSessionNotFound(runtimeSessionId?: string): NotFoundError {
  return new NotFoundError('RUNTIME_SESSION_NOT_FOUND', 'no runtime session has this id', runtimeSessionId ? { runtimeSessionId } : undefined);
}

function decideWorkerReport(state: RuntimeSessionState, report: WorkerReport, turnId: string | null, now: string): RuntimeSessionEvent[] {
  if (state.status === 'interrupted') {
    throw new ConflictError('RUNTIME_INTERRUPTED', 'the turn was interrupted; the conversation starts a new turn on this session to continue', {
      runtimeSessionId: state.runtimeSessionId,
      lastError: state.lastError,
    });
  }
  const current = state.currentTurnId;
  if (current === null)
    throw new ConflictError('NO_TURN_IN_FLIGHT', `no turn is in flight on this runtime session (it is ${state.status})`, {
      runtimeSessionId: state.runtimeSessionId,
    });
  if (turnId !== null && turnId !== current)
    throw new ConflictError('TURN_MISMATCH', `turn ${turnId} is not the turn in flight (${current})`, { turnId, currentTurnId: current });
  switch (report.type) {
    case 'started':
      // A repeated start (a retried request) changes nothing.
      return state.status === 'starting' ? [{ type: 'RuntimeRunning', data: { turnId: current, at: now } }] : [];
    case 'progress':
      return [{ type: 'RuntimeProgress', data: { turnId: current, message: report.message, details: report.details, at: now } }];
    case 'question':
      if (state.pendingQuestions.some((question) => question.questionId === report.questionId)) return [];
      if (state.answeredQuestions.some((question) => question.questionId === report.questionId)) {
        throw new ConflictError('QUESTION_ALREADY_ANSWERED', `question ${report.questionId} was already asked and answered`, { questionId: report.questionId });
      }
      return [{ type: 'QuestionAsked', data: { turnId: current, questionId: report.questionId, details: report.details, at: now } }];
    case 'approval_request':
      if (state.pendingApprovals.some((approval) => approval.approvalId === report.approvalId)) return [];
      if (state.resolvedApprovals.some((approval) => approval.approvalId === report.approvalId)) {
        throw new ConflictError('APPROVAL_ALREADY_RESOLVED', `approval ${report.approvalId} was already requested and resolved`, {
          approvalId: report.approvalId,
        });
      }
      return [{ type: 'ApprovalRequested', data: { turnId: current, approvalId: report.approvalId, details: report.details, at: now } }];
    case 'approval_resolved':
      return decideApproval(state, report.approvalId, report.decision, report.remember, 'worker', now);
    case 'completed':
      return [{ type: 'TurnCompleted', data: { turnId: current, output: report.output, at: now } }];
    case 'failed':
      return [{ type: 'TurnFailed', data: { turnId: current, error: report.error, at: now } }];
    default: {
      const unknown: never = report;
      return unknown;
    }
  }
}

function decideApproval(
  state: RuntimeSessionState,
  approvalId: string,
  decision: ApprovalDecision,
  remember: ApprovalMemory,
  by: Responder,
  now: string,
): RuntimeSessionEvent[] {
  if (state.pendingApprovals.some((approval) => approval.approvalId === approvalId)) {
    return [{ type: 'ApprovalResolved', data: { approvalId, decision, remember, by, at: now } }];
  }
  const resolved = state.resolvedApprovals.find((approval) => approval.approvalId === approvalId);
  // The same answer again is a retry; a different one comes too late.
  if (resolved && resolved.decision === decision && resolved.remember === remember) return [];
  if (resolved)
    throw new ConflictError('APPROVAL_ALREADY_RESOLVED', `approval ${approvalId} was already resolved (${resolved.decision})`, {
      approvalId,
      decision: resolved.decision,
      remember: resolved.remember,
    });
  throw new NotFoundError('APPROVAL_NOT_FOUND', `no pending approval ${approvalId} on this runtime session`, { approvalId });
}

function decideAnswer(state: RuntimeSessionState, questionId: string, answer: string, now: string): RuntimeSessionEvent[] {
  if (state.pendingQuestions.some((question) => question.questionId === questionId)) {
    return [{ type: 'QuestionAnswered', data: { questionId, answer, by: 'user', at: now } }];
  }
  const answered = state.answeredQuestions.find((question) => question.questionId === questionId);
  if (answered && answered.answer === answer) return [];
  if (answered) throw new ConflictError('QUESTION_ALREADY_ANSWERED', `question ${questionId} was already answered`, { questionId });
  throw new NotFoundError('QUESTION_NOT_FOUND', `no pending question ${questionId} on this runtime session`, { questionId });
}

export function decideRuntimeSession(command: RuntimeSessionCommand, state: RuntimeSessionState): RuntimeSessionEvent[] {
  if (command.type === 'StartTurn') {
    const started: RuntimeSessionEvent[] = [];
    if (state.status === 'absent') {
      const { runtimeSessionId, provider, model, sessionKey, now } = command;
      started.push({ type: 'RuntimeSessionStarted', data: { runtimeSessionId, provider, model, sessionKey, at: now } });
    } else if (turnInFlight(state)) {
      throw new ConflictError('RUNTIME_BUSY', 'a turn is already in flight on this runtime session; queue the message instead', {
        runtimeSessionId: state.runtimeSessionId,
        currentTurnId: state.currentTurnId,
        state: state.status,
        interruptRequested: state.interruptRequested ?? null,
      });
    }
    started.push({ type: 'TurnStarted', data: { turnId: `turn_${state.turnCount + 1}`, input: command.input, at: command.now } });
    return started;
  }
  if (state.status === 'absent') throw runtimeSessionNotFound();
  switch (command.type) {
    case 'ReportWorkerEvent':
      return decideWorkerReport(state, command.report, command.turnId, command.now);
    case 'ResolveApproval':
      // Also on an interrupted session: the decision is recorded for the worker that resumes it.
      return decideApproval(state, command.approvalId, command.decision, command.remember, 'user', command.now);
    case 'AnswerQuestion':
      return decideAnswer(state, command.questionId, command.answer, command.now);
    case 'Interrupt': {
      if (!turnInFlight(state)) return [];
      if (command.quietSince !== null && state.lastWorkerEventAt !== null && Date.parse(state.lastWorkerEventAt) >= Date.parse(command.quietSince)) return [];
      const { reason, error, now } = command;
      return [{ type: 'RuntimeInterrupted', data: { turnId: state.currentTurnId, reason, error, previousState: state.status, at: now } }];
    }
    case 'RequestInterrupt': {
      const turnId = state.currentTurnId;
      // Asked once per turn: a burst of interrupting messages is one request, and a retry writes nothing.
      if (turnId === null || state.interruptRequested?.turnId === turnId) return [];
      // The turn the message arrived during has ended; the one running now may be the one answering it.
      if (command.turnId !== undefined && command.turnId !== turnId) return [];
      return [{ type: 'InterruptRequested', data: { turnId, messageId: command.messageId, at: command.now } }];
    }
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const runtimeSessionDecider: Decider<RuntimeSessionState, RuntimeSessionCommand, RuntimeSessionEvent> = {
  initialState: initialRuntimeSessionState,
  evolve: evolveRuntimeSession,
  decide: decideRuntimeSession,
};
