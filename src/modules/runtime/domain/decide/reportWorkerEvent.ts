// ReportWorkerEvent: what the worker running the turn in flight reports (started, progress, a question, an approval
// asked or resolved, completed, failed), refused when no turn, another turn or an interrupted one is in flight.
import { ConflictError } from '../../../../errors/ledgerError.js';
import type { RuntimeSessionEvent } from '../../../../events/runtime/runtimeSessionEvents.js';
import type { RuntimeSessionState, WorkerReport } from '../runtimeSessionState.js';
import { decideApproval } from './resolveApproval.js';

export interface ReportWorkerEvent {
  type: 'ReportWorkerEvent';
  report: WorkerReport;
  turnId: string | null;
  now: string;
}

export function decideReportWorkerEvent(command: ReportWorkerEvent, state: RuntimeSessionState): RuntimeSessionEvent[] {
  const { report, turnId, now } = command;
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
