// The conversation decider: the state a conversation's events fold to (`evolve`), and `decide`, which hands each
// command to its own rule under decide/ (resolve, reset, switch, suspend, resume marks, the queue, prune, expiry, import).
import type { ConversationEvent } from '../../../events/conversation/conversationEvents.js';
import { automaticBindReasons, withoutSessionScopedFields } from '../../../events/conversation/routingEntryRules.js';
import { type Decider, unknownEventType } from '../../../events/decider.js';
import { type BoundConversation, type ConversationState, initialConversationState, type OpenConversation } from './conversationState.js';
import { conversationNotFound } from './conversationRules.js';
import { decideResolveSession, type ResolveSession } from './decide/resolveSession.js';
import { decideExpireSession, type ExpireSession } from './decide/expireSession.js';
import { decideResetConversation, type ResetConversation } from './decide/resetConversation.js';
import { decideSwitchSession, type SwitchSession } from './decide/switchSession.js';
import { decideSuspendConversation, type SuspendConversation } from './decide/suspendConversation.js';
import { decideMarkResumePending, type MarkResumePending } from './decide/markResumePending.js';
import { decideClearResumePending, type ClearResumePending } from './decide/clearResumePending.js';
import { decideCountRestartInterruption, type CountRestartInterruption } from './decide/countRestartInterruption.js';
import { decideEnqueueMessage, type EnqueueMessage } from './decide/enqueueMessage.js';
import { decideDequeueMessage, type DequeueMessage } from './decide/dequeueMessage.js';
import { decideQueueContinuation, type QueueContinuation } from './decide/queueContinuation.js';
import { decidePruneConversation, type PruneConversation } from './decide/pruneConversation.js';
import { decideImportRoutingEntry, type ImportRoutingEntry } from './decide/importRoutingEntry.js';

export { initialConversationState } from './conversationState.js';
export { conversationNotFound, queueDepth, waitingContinuation } from './conversationRules.js';
export type { AbsentConversation, BoundConversation, ConversationState, OpenConversation, UnboundConversation } from './conversationState.js';

export type ConversationCommand =
  | ResolveSession
  | ResetConversation
  | SwitchSession
  | SuspendConversation
  | MarkResumePending
  | ClearResumePending
  | CountRestartInterruption
  | EnqueueMessage
  | DequeueMessage
  | QueueContinuation
  | PruneConversation
  | ExpireSession
  | ImportRoutingEntry;

export function evolveConversation(state: ConversationState, event: ConversationEvent): ConversationState {
  if (event.type === 'ConversationOpened') {
    return {
      ...initialConversationState(),
      status: 'open',
      sessionIds: state.sessionIds,
      sessionKey: event.data.sessionKey,
      origin: event.data.origin,
      displayName: event.data.displayName,
      gatewayId: event.data.gatewayId,
      updatedAt: event.data.at,
      isolation: event.data.isolation ?? null,
      sessionId: null,
    };
  }
  // Every other event follows ConversationOpened in its stream (decideConversation writes nothing else for an absent conversation).
  if (state.status === 'absent') return state;
  return evolveOpenConversation(state, event);
}

function evolveOpenConversation(state: OpenConversation, event: Exclude<ConversationEvent, { type: 'ConversationOpened' }>): ConversationState {
  switch (event.type) {
    case 'SessionBound': {
      const { reason } = event.data;
      const autoReset = automaticBindReasons.includes(reason);
      return {
        ...state,
        sessionId: event.data.sessionId,
        sessionIds: state.sessionIds.includes(event.data.sessionId) ? state.sessionIds : [...state.sessionIds, event.data.sessionId],
        createdAt: event.data.at,
        bindReason: reason,
        updatedAt: event.data.at,
        origin: reason === 'reset' || reason === 'switch' ? state.origin : event.data.origin,
        displayName: event.data.displayName ?? state.displayName,
        gatewayId: event.data.gatewayId,
        suspended: false,
        resumePending: false,
        resumeReason: null,
        lastResumeMarkedAt: null,
        wasAutoReset: autoReset,
        autoResetReason: autoReset ? reason : null,
        resetHadActivity: reason === 'new' || reason === 'switch' ? false : event.data.previousHadActivity,
        isFreshReset: reason === 'reset',
        carried: withoutSessionScopedFields(state.carried),
        expired: null,
      };
    }
    case 'ConversationTouched':
      return { ...state, gatewayId: event.data.gatewayId, updatedAt: event.data.at, isFreshReset: false };
    case 'Suspended':
      return { ...state, suspended: true, updatedAt: event.data.at };
    case 'ResumeMarked':
      return { ...state, resumePending: true, resumeReason: event.data.reason, lastResumeMarkedAt: event.data.at, updatedAt: event.data.at };
    case 'ResumeCleared':
      return {
        ...state,
        resumePending: false,
        resumeReason: null,
        interruptedStarts: event.data.reason === 'turn_completed' ? 0 : state.interruptedStarts,
      };
    case 'RestartInterrupted':
      return { ...state, interruptedStarts: event.data.count, lastInterruptedBootId: event.data.bootId };
    case 'MessageQueued':
      return {
        ...state,
        queue:
          event.data.placement === 'slot'
            ? { ...state.queue, slot: event.data.message }
            : { ...state.queue, overflow: [...state.queue.overflow, event.data.message] },
      };
    case 'QueuedMessageReplaced':
      return {
        ...state,
        queue:
          event.data.placement === 'slot'
            ? { ...state.queue, slot: event.data.message }
            : { ...state.queue, overflow: [...state.queue.overflow.slice(0, -1), event.data.message] },
      };
    case 'MessageDequeued': {
      const { messageId, from, at } = event.data;
      const taken = from === 'slot' ? state.queue.slot : state.queue.overflow.find((message) => message.id === messageId);
      const lastDequeued = { messageId, text: taken?.text ?? null, at };
      if (from === 'slot') return { ...state, queue: { ...state.queue, slot: null }, lastDequeued };
      return { ...state, queue: { ...state.queue, overflow: state.queue.overflow.filter((message) => message.id !== messageId) }, lastDequeued };
    }
    case 'QueueCleared': {
      if (event.data.scope === 'all') return { ...state, queue: { slot: null, overflow: [] } };
      // A slot-only clear also drops a waiting continuation it names (a suspended conversation continues nothing).
      const discarded = new Set(event.data.discardedIds);
      return { ...state, queue: { slot: null, overflow: state.queue.overflow.filter((message) => !discarded.has(message.id)) } };
    }
    case 'ContinuationQueued':
      return {
        ...state,
        queue: { ...state.queue, overflow: [event.data.message, ...state.queue.overflow] },
        lastContinuationBootId: event.data.message.continuation?.bootId ?? state.lastContinuationBootId,
      };
    case 'ConversationPruned':
      return { ...initialConversationState(), sessionIds: state.sessionIds, sessionKey: state.sessionKey };
    case 'RoutingEntryImported': {
      const { at: _at, ...entry } = event.data;
      return { ...state, ...entry };
    }
    case 'SessionExpired': {
      const { sessionId, reason, hadActivity, at } = event.data;
      return { ...state, expired: { sessionId, reason, hadActivity, at } };
    }
    case 'ResetPolicySet':
      return { ...state, resetPolicy: event.data.policy };
    case 'BackgroundActivityReported':
      return { ...state, backgroundProcessSince: event.data.backgroundProcessSince };
    default:
      return unknownEventType(event, state);
  }
}

/** The conversation a resolve left: decideConversation binds a session whenever it opens a conversation, so this throws only for one never opened. */
export function boundConversation(state: ConversationState): BoundConversation {
  if (state.status === 'absent' || state.sessionId === null) throw conversationNotFound();
  return state;
}

/** Which rule decides a command: each is a function of the command and the state alone, in its own file under decide/. */
export function decideConversation(command: ConversationCommand, state: ConversationState): ConversationEvent[] {
  switch (command.type) {
    case 'ResolveSession':
      return decideResolveSession(command, state);
    case 'ExpireSession':
      return decideExpireSession(command, state);
    case 'ResetConversation':
      return decideResetConversation(command, state);
    case 'SwitchSession':
      return decideSwitchSession(command, state);
    case 'SuspendConversation':
      return decideSuspendConversation(command, state);
    case 'MarkResumePending':
      return decideMarkResumePending(command, state);
    case 'ClearResumePending':
      return decideClearResumePending(command, state);
    case 'CountRestartInterruption':
      return decideCountRestartInterruption(command, state);
    case 'EnqueueMessage':
      return decideEnqueueMessage(command, state);
    case 'DequeueMessage':
      return decideDequeueMessage(command, state);
    case 'QueueContinuation':
      return decideQueueContinuation(command, state);
    case 'PruneConversation':
      return decidePruneConversation(command, state);
    case 'ImportRoutingEntry':
      return decideImportRoutingEntry(command, state);
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const conversationDecider: Decider<ConversationState, ConversationCommand, ConversationEvent> = {
  initialState: initialConversationState,
  evolve: evolveConversation,
  decide: decideConversation,
};
