// The runtime sessions read model folds a runtime session's events onto its own row: the status and heartbeat the
// watchdog filters on, and the turn and waits that place the status. The write-side fold (evolveRuntimeSession) must
// agree on every column; test/unit/runtimeSessionRowFold.unit.spec.ts checks that over random histories.
import { unknownEventType } from '../../events/decider.js';
import type { RuntimeSessionEvent } from '../../events/runtime/runtimeSessionEvents.js';
import type { RuntimeSessionRow, RuntimeSessionRowState, RuntimeSessionTurn } from './runtimeSessionRow.js';

/** A runtime session's row less what the stream's name and the event's place in the log give. */
export type RuntimeSessionRecord = Omit<RuntimeSessionRow, 'tenant' | 'lastPosition'>;

/** null: no RuntimeSessionStarted yet, so no row (the decider writes nothing else for an absent runtime session). */
export function evolveRuntimeSessionRow(record: RuntimeSessionRecord | null, event: RuntimeSessionEvent): RuntimeSessionRecord | null {
  if (event.type === 'RuntimeSessionStarted') {
    const { runtimeSessionId, provider, model, sessionKey, at } = event.data;
    const turn: RuntimeSessionTurn = { currentTurnId: null, pendingApprovals: [], pendingQuestions: [] };
    return { runtimeSessionId, sessionKey, provider, model, state: 'idle', lastWorkerEventAt: null, updatedAt: new Date(at), folded: turn };
  }
  if (record === null) return null;
  const turn = record.folded;
  switch (event.type) {
    case 'TurnStarted': {
      const { turnId, at } = event.data;
      return { ...record, state: 'starting', lastWorkerEventAt: new Date(at), updatedAt: new Date(at), folded: { ...turnOf(turn), currentTurnId: turnId } };
    }
    case 'RuntimeRunning':
      return { ...record, state: waitingState(turn), lastWorkerEventAt: new Date(event.data.at), updatedAt: new Date(event.data.at) };
    case 'RuntimeProgress': {
      const at = new Date(event.data.at);
      return { ...record, state: record.state === 'starting' ? 'running' : record.state, lastWorkerEventAt: at, updatedAt: at };
    }
    case 'QuestionAsked': {
      const { turnId, questionId, at } = event.data;
      const next = { ...turnOf(turn), pendingQuestions: [...turn.pendingQuestions, { questionId, turnId }] };
      return { ...record, state: waitingState(next), lastWorkerEventAt: new Date(at), updatedAt: new Date(at), folded: next };
    }
    case 'ApprovalRequested': {
      const { turnId, approvalId, at } = event.data;
      const next = { ...turnOf(turn), pendingApprovals: [...turn.pendingApprovals, { approvalId, turnId }] };
      return { ...record, state: waitingState(next), lastWorkerEventAt: new Date(at), updatedAt: new Date(at), folded: next };
    }
    case 'QuestionAnswered': {
      const { questionId, by, at } = event.data;
      if (!turn.pendingQuestions.some((pending) => pending.questionId === questionId)) return record;
      const next = { ...turnOf(turn), pendingQuestions: turn.pendingQuestions.filter((pending) => pending.questionId !== questionId) };
      return answered(record, next, by, at);
    }
    case 'ApprovalResolved': {
      const { approvalId, by, at } = event.data;
      if (!turn.pendingApprovals.some((pending) => pending.approvalId === approvalId)) return record;
      const next = { ...turnOf(turn), pendingApprovals: turn.pendingApprovals.filter((pending) => pending.approvalId !== approvalId) };
      return answered(record, next, by, at);
    }
    case 'TurnCompleted':
    case 'TurnFailed': {
      // The end of a turn clears its waits.
      const at = new Date(event.data.at);
      const next: RuntimeSessionTurn = { currentTurnId: null, pendingApprovals: [], pendingQuestions: [] };
      return { ...record, state: 'idle', lastWorkerEventAt: at, updatedAt: at, folded: next };
    }
    case 'RuntimeInterrupted':
      // Waits stay answerable across an interruption; an interrupt is no worker event.
      return { ...record, state: 'interrupted', updatedAt: new Date(event.data.at), folded: { ...turnOf(turn), currentTurnId: null } };
    case 'InterruptRequested':
      return { ...record, updatedAt: new Date(event.data.at) };
    default:
      return unknownEventType(event, record);
  }
}

/**
 * Just the turn and its waits: a row written when the column held the whole runtime session state sheds the rest
 * when its turn or waits next change.
 */
function turnOf(turn: RuntimeSessionTurn): RuntimeSessionTurn {
  return { currentTurnId: turn.currentTurnId, pendingApprovals: turn.pendingApprovals, pendingQuestions: turn.pendingQuestions };
}

/** Where a turn in flight stands once its waits change: approvals first, then questions, else running. */
function waitingState(turn: RuntimeSessionTurn): RuntimeSessionRowState {
  const current = turn.currentTurnId;
  if (turn.pendingApprovals.some((approval) => approval.turnId === current)) return 'waiting_approval';
  if (turn.pendingQuestions.some((question) => question.turnId === current)) return 'waiting_user';
  return 'running';
}

/** A wait answered: by the worker, it is a worker event too; with a turn in flight, the status follows its waits. */
function answered(record: RuntimeSessionRecord, next: RuntimeSessionTurn, by: string, at: string): RuntimeSessionRecord {
  return {
    ...record,
    state: next.currentTurnId !== null ? waitingState(next) : record.state,
    lastWorkerEventAt: by === 'worker' ? new Date(at) : record.lastWorkerEventAt,
    updatedAt: new Date(at),
    folded: next,
  };
}
