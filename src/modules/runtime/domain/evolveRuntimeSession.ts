// A runtime session's fold: each event onto the state it follows.
import { unknownEventType } from '../../../events/decider.js';
import type { RuntimeSessionEvent } from '../../../events/runtime/runtimeSessionEvents.js';
import {
  type ExistingRuntimeSession,
  initialRuntimeSessionState,
  RECENT_LIMIT,
  type RuntimeSessionState,
  turnInFlight,
  type TurnRecord,
} from './runtimeSessionState.js';

const keepRecent = <T>(items: T[]): T[] => items.slice(-RECENT_LIMIT);

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
