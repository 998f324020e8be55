// The rules several conversation commands share: the refusal of a conversation never opened, the binding of a
// session, and the queue as a decision sees it (its depth, a waiting continuation, what a clear discards).
import { NotFoundError } from '../../../errors/ledgerError.js';
import type { ConversationEvent, QueuedMessage, SessionBindReason } from '../../../events/conversation/conversationEvents.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import type { ConversationState } from './conversationState.js';

export function conversationNotFound(): NotFoundError {
  return new NotFoundError('CONVERSATION_NOT_FOUND', 'no conversation has this session key');
}

export function bind(
  state: ConversationState,
  sessionId: string,
  reason: SessionBindReason,
  previousHadActivity: boolean,
  origin: SessionSource,
  gatewayId: string,
  at: string,
): ConversationEvent {
  return { type: 'SessionBound', data: { sessionId, reason, previousSessionId: state.sessionId, previousHadActivity, origin, gatewayId, at } };
}

/** A continuation waits at the overflow's head and is taken before the slot. */
export function waitingContinuation(state: ConversationState): QueuedMessage | undefined {
  const head = state.queue.overflow[0];
  return head?.kind === 'auto_continue' ? head : undefined;
}

/**
 * A slot-scoped clear (a suspend, /stop) takes what would run next: a waiting continuation, and the slot's message or,
 * with the slot taken, the overflow's oldest. Hermes' /stop discards its pending slot, which its drain keeps filled
 * with the next message in line. A reset takes everything.
 */
export function clearQueue(state: ConversationState, scope: 'slot' | 'all', reason: string, at: string): ConversationEvent[] {
  const continuation = waitingContinuation(state);
  const next = state.queue.slot ?? state.queue.overflow.find((message) => message !== continuation) ?? null;
  const discarded = scope === 'slot' ? [continuation ?? null, next] : [state.queue.slot, ...state.queue.overflow];
  const discardedIds = discarded.filter((message): message is QueuedMessage => message !== null).map((message) => message.id);
  return discardedIds.length === 0 ? [] : [{ type: 'QueueCleared', data: { scope, reason, discardedIds, at } }];
}

export function queueDepth(state: ConversationState): number {
  return state.queue.overflow.length + (state.queue.slot ? 1 : 0);
}
