// What of runtime-binding and runtime-session events an erasure keeps: bindings, states, waits and times, without prompts, answers or output.
import type { RuntimeBindingEvent } from '../../../events/runtime/runtimeBindingEvents.js';
import type { RuntimeSessionEvent } from '../../../events/runtime/runtimeSessionEvents.js';
import { erasedTextOrNull } from './erasedValues.js';
import { ERASED_TEXT } from './erasureContext.js';
import { type Redactors, unchanged } from './redactors.js';

// The binding holds ids the service made, provider, model and the service's own drift note: nothing of the person.
export const runtimeBindingRedactors: Redactors<RuntimeBindingEvent> = {
  RuntimeBound: unchanged,
  RuntimeDetached: unchanged,
};

export const runtimeSessionRedactors: Redactors<RuntimeSessionEvent> = {
  RuntimeSessionStarted: (data, context) => ({
    runtimeSessionId: data.runtimeSessionId,
    provider: data.provider,
    model: data.model,
    sessionKey: context.pseudonymousKey,
    at: data.at,
  }),
  TurnStarted: (data) => ({ turnId: data.turnId, input: ERASED_TEXT, at: data.at }),
  RuntimeRunning: unchanged,
  RuntimeProgress: (data) => ({ turnId: data.turnId, message: erasedTextOrNull(data.message), details: {}, at: data.at }),
  QuestionAsked: (data) => ({ turnId: data.turnId, questionId: data.questionId, details: {}, at: data.at }),
  QuestionAnswered: (data) => ({ questionId: data.questionId, answer: ERASED_TEXT, by: data.by, at: data.at }),
  ApprovalRequested: (data) => ({ turnId: data.turnId, approvalId: data.approvalId, details: {}, at: data.at }),
  ApprovalResolved: unchanged,
  TurnCompleted: (data) => ({ turnId: data.turnId, output: {}, at: data.at }),
  TurnFailed: (data) => ({ turnId: data.turnId, error: ERASED_TEXT, at: data.at }),
  // The service writes this error itself, but it may quote the worker's last words.
  // The message id is the gateway's and may embed a platform message id: a pseudonym, as in the queue's events.
  InterruptRequested: (data, context) => ({ turnId: data.turnId, messageId: context.pseudonym(data.messageId), at: data.at }),
  RuntimeInterrupted: (data) => ({ turnId: data.turnId, reason: data.reason, error: ERASED_TEXT, previousState: data.previousState, at: data.at }),
};
