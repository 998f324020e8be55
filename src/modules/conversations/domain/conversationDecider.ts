// The conversation decider: resolve precedence (suspended > resumePending > existing), reset, switch, suspend, resume marks.
import { LedgerError } from '../../../errors/ledgerError.js';
import {
  type AutoContinuation,
  type CarriedEntryFields,
  type ConversationEvent,
  type ImportedRoutingEntry,
  type QueuedMessage,
  SESSION_SCOPED_CARRIED_FIELDS,
  type SessionBindReason,
} from '../../../events/conversation/conversationEvents.js';
import { type Decider, unknownEventType } from '../../../events/decider.js';
import { type BoundConversation, type ConversationState, initialConversationState, type OpenConversation } from './conversationState.js';
import type { QueueFollowUps } from '../../../config/queueFollowUps.js';
import { conversationNotFound, queueDepth, waitingContinuation } from './conversationRules.js';
import { decideResolveSession, type ResolveSession } from './decide/resolveSession.js';
import { decideExpireSession, type ExpireSession } from './decide/expireSession.js';
import { decideResetConversation, type ResetConversation } from './decide/resetConversation.js';
import { decideSwitchSession, type SwitchSession } from './decide/switchSession.js';
import { decideSuspendConversation, type SuspendConversation } from './decide/suspendConversation.js';
import { decideMarkResumePending, type MarkResumePending } from './decide/markResumePending.js';
import { decideClearResumePending, type ClearResumePending } from './decide/clearResumePending.js';
import { decideCountRestartInterruption, type CountRestartInterruption } from './decide/countRestartInterruption.js';

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
  | { type: 'EnqueueMessage'; message: QueuedMessage; cap: number; followUps: QueueFollowUps; now: string }
  | { type: 'DequeueMessage'; now: string }
  /** A gateway start's continuation for a conversation to resume: at the head of the queue, once per boot. */
  | { type: 'QueueContinuation'; messageId: string; continuation: AutoContinuation; now: string }
  | { type: 'PruneConversation'; olderThan: string; now: string }
  | ExpireSession
  /** Only the importer sends it: the entry as the imported gateway last wrote it. */
  | { type: 'ImportRoutingEntry'; entry: Omit<ImportedRoutingEntry, 'at'>; now: string };

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

/** The carried fields that outlive a change of session (the sessions index's entry fold shares it). */
export function withoutSessionScopedFields(carried: CarriedEntryFields | null): CarriedEntryFields | null {
  if (!carried) return null;
  const kept = Object.fromEntries(Object.entries(carried).filter(([key]) => !SESSION_SCOPED_CARRIED_FIELDS.includes(key))) as CarriedEntryFields;
  return Object.keys(kept).length > 0 ? kept : null;
}

/** Binding reasons Hermes counts as automatic resets (was_auto_reset). */
export const automaticBindReasons: readonly SessionBindReason[] = ['suspended', 'resume_expired', 'idle', 'daily'];

/** The conversation a resolve left: decideConversation binds a session whenever it opens a conversation, so this throws only for one never opened. */
export function boundConversation(state: ConversationState): BoundConversation {
  if (state.status === 'absent' || state.sessionId === null) throw conversationNotFound();
  return state;
}

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
      if (state.status === 'absent') throw conversationNotFound();
      return enqueue(state, command.message, command.cap, command.followUps);
    case 'DequeueMessage': {
      if (state.status === 'absent') throw conversationNotFound();
      const continuation = waitingContinuation(state);
      if (continuation) return [{ type: 'MessageDequeued', data: { messageId: continuation.id, from: 'overflow', at: command.now } }];
      const next = state.queue.slot ?? state.queue.overflow[0];
      if (!next) return [];
      return [{ type: 'MessageDequeued', data: { messageId: next.id, from: state.queue.slot ? 'slot' : 'overflow', at: command.now } }];
    }
    case 'QueueContinuation': {
      if (state.status === 'absent' || state.suspended) return [];
      // Once per boot, and never two waiting: a repeated or later start finds the first one still at the head.
      if (state.lastContinuationBootId === command.continuation.bootId || waitingContinuation(state)) return [];
      const message: QueuedMessage = {
        id: command.messageId,
        mode: 'queue',
        text: continuationText(command.continuation),
        media: [],
        sender: null,
        metadata: null,
        queuedAt: command.now,
        kind: 'auto_continue',
        continuation: command.continuation,
      };
      return [{ type: 'ContinuationQueued', data: { message } }];
    }
    case 'PruneConversation': {
      if (state.status === 'absent' || state.suspended) return [];
      if (state.queue.slot || state.queue.overflow.length > 0) return [];
      // Hermes' prune_old_entries never drops a session with an active background process; the reset guard's
      // bg_process_max_age_hours cut-off is for resets only: a pruned key would lose the process's conversation.
      if (state.backgroundProcessSince !== null) return [];
      if (Date.parse(state.updatedAt) >= Date.parse(command.olderThan)) return [];
      return [{ type: 'ConversationPruned', data: { idleSince: state.updatedAt, at: command.now } }];
    }
    case 'ImportRoutingEntry': {
      if (state.status === 'absent') throw conversationNotFound();
      return [{ type: 'RoutingEntryImported', data: { ...command.entry, at: command.now } }];
    }
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

/** What the agent reads as the continuation's user message: why it is running, and what it was doing. */
export function continuationText(continuation: AutoContinuation): string {
  const lines = [
    `[System note: your previous turn was interrupted by a gateway restart (${continuation.reason}); the gateway is back online. ` +
      'Continue the interrupted work from the transcript, or tell the user briefly what was done and what was cut short.]',
  ];
  if (continuation.interruptedText) lines.push(`The interrupted request was: ${continuation.interruptedText}`);
  return lines.join('\n');
}

/** The follow-up a later one may join: the slot's, or the overflow's last, never an explicitly /queue'd message. */
function waitingFollowUp(state: ConversationState): { message: QueuedMessage; placement: 'slot' | 'overflow' } | null {
  const { slot, overflow } = state.queue;
  if (slot?.mode === 'interrupt') return { message: slot, placement: 'slot' };
  const tail = overflow.at(-1);
  return tail?.mode === 'interrupt' ? { message: tail, placement: 'overflow' } : null;
}

/** `fifo` joins only where media are involved (Hermes merges a photo burst, an album, a caption into its pending event). */
function joinsWaiting(waiting: QueuedMessage, incoming: QueuedMessage, followUps: QueueFollowUps): boolean {
  return followUps !== 'fifo' || waiting.media.length > 0 || incoming.media.length > 0;
}

/** The later message absorbs the waiting one: media added; text appended after a newline, or replacing it (`replace`). */
function coalesce(waiting: QueuedMessage, incoming: QueuedMessage, followUps: QueueFollowUps): QueuedMessage {
  const appended = followUps !== 'replace' && waiting.text && incoming.text ? `${waiting.text}\n${incoming.text}` : null;
  return { ...incoming, text: appended ?? incoming.text ?? waiting.text, media: [...waiting.media, ...incoming.media] };
}

function isWaiting(state: ConversationState, messageId: string): boolean {
  return state.queue.slot?.id === messageId || state.queue.overflow.some((message) => message.id === messageId);
}

function enqueue(state: ConversationState, message: QueuedMessage, cap: number, followUps: QueueFollowUps): ConversationEvent[] {
  const { slot, overflow } = state.queue;
  // A gateway sending the same message again (a retry without an Idempotency-Key) queues it once.
  if (isWaiting(state, message.id)) return [];
  if (message.mode === 'interrupt') {
    const waiting = waitingFollowUp(state);
    if (waiting && joinsWaiting(waiting.message, message, followUps)) {
      const joined = coalesce(waiting.message, message, followUps);
      return [{ type: 'QueuedMessageReplaced', data: { replacedId: waiting.message.id, message: joined, placement: waiting.placement } }];
    }
  }
  // An empty slot takes the message only when nothing waits in the overflow: FIFO order holds.
  if (!slot && overflow.length === 0) return [{ type: 'MessageQueued', data: { message, placement: 'slot' } }];
  if (queueDepth(state) >= cap) {
    throw new LedgerError('QUEUE_FULL', `the queue of this conversation holds ${cap} messages; wait for the agent to take some`, 429, { cap });
  }
  return [{ type: 'MessageQueued', data: { message, placement: 'overflow' } }];
}

export const conversationDecider: Decider<ConversationState, ConversationCommand, ConversationEvent> = {
  initialState: initialConversationState,
  evolve: evolveConversation,
  decide: decideConversation,
};
