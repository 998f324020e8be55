// AnswerQuestion: the user's answer to a pending question, once; the same answer again is a retry.
import { ConflictError, NotFoundError } from '../../../../errors/ledgerError.js';
import type { RuntimeSessionEvent } from '../../../../events/runtime/runtimeSessionEvents.js';
import type { RuntimeSessionState } from '../runtimeSessionState.js';

export interface AnswerQuestion {
  type: 'AnswerQuestion';
  questionId: string;
  answer: string;
  now: string;
}

export function decideAnswerQuestion(command: AnswerQuestion, state: RuntimeSessionState): RuntimeSessionEvent[] {
  const { questionId, answer, now } = command;
  if (state.pendingQuestions.some((question) => question.questionId === questionId)) {
    return [{ type: 'QuestionAnswered', data: { questionId, answer, by: 'user', at: now } }];
  }
  const answered = state.answeredQuestions.find((question) => question.questionId === questionId);
  if (answered && answered.answer === answer) return [];
  if (answered) throw new ConflictError('QUESTION_ALREADY_ANSWERED', `question ${questionId} was already answered`, { questionId });
  throw new NotFoundError('QUESTION_NOT_FOUND', `no pending question ${questionId} on this runtime session`, { questionId });
}
