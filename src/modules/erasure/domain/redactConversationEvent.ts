// What of a conversation stream's events an erasure keeps: bindings, flags, times and queue movements, without who or what.
import type { ConversationEvent } from '../../../events/conversation/conversationEvents.js';
import { erasedQueuedMessage, erasedSource } from './erasedValues.js';
import { ERASED_TEXT } from './erasureContext.js';
import { type Redactors, unchanged } from './redactors.js';

// Reasons the service itself writes; any other came in a request and may quote the person.
const SERVICE_SUSPEND_REASONS = new Set(['stop', 'stuck_loop']);

export const conversationRedactors: Redactors<ConversationEvent> = {
  ConversationOpened: (data, context) => ({
    sessionKey: context.pseudonymousKey,
    origin: erasedSource(data.origin),
    displayName: null,
    gatewayId: data.gatewayId,
    at: data.at,
    ...(data.isolation === undefined ? {} : { isolation: data.isolation }),
  }),
  SessionBound: (data) => ({
    sessionId: data.sessionId,
    reason: data.reason,
    previousSessionId: data.previousSessionId,
    previousHadActivity: data.previousHadActivity,
    origin: erasedSource(data.origin),
    gatewayId: data.gatewayId,
    at: data.at,
  }),
  ConversationTouched: unchanged,
  Suspended: (data) => ({ reason: SERVICE_SUSPEND_REASONS.has(data.reason) ? data.reason : ERASED_TEXT, at: data.at }),
  ResumeMarked: unchanged,
  ResumeCleared: unchanged,
  RestartInterrupted: unchanged,
  MessageQueued: (data, context) => ({ message: erasedQueuedMessage(data.message, context), placement: data.placement }),
  QueuedMessageReplaced: (data, context) => ({
    replacedId: context.pseudonym(data.replacedId),
    message: erasedQueuedMessage(data.message, context),
    placement: data.placement,
  }),
  MessageDequeued: (data, context) => ({ messageId: context.pseudonym(data.messageId), from: data.from, at: data.at }),
  QueueCleared: (data, context) => ({ scope: data.scope, reason: data.reason, discardedIds: data.discardedIds.map(context.pseudonym), at: data.at }),
  ConversationPruned: unchanged,
  ContinuationQueued: (data, context) => ({ message: erasedQueuedMessage(data.message, context) }),
  // The display name and the carried fields (Hermes' metadata, the source's profile) may name the person.
  RoutingEntryImported: (data) => ({ ...data, displayName: null, carried: null }),
  // A reason, times and a policy of the service's own shape: nothing of the person.
  SessionExpired: unchanged,
  ResetPolicySet: unchanged,
  BackgroundActivityReported: unchanged,
};
