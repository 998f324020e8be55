// DequeueMessage: the agent takes the next message: a waiting continuation first, then the slot, then the overflow.
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import { conversationNotFound, waitingContinuation } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface DequeueMessage {
  type: 'DequeueMessage';
  now: string;
}

export function decideDequeueMessage(command: DequeueMessage, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  const continuation = waitingContinuation(state);
  if (continuation) return [{ type: 'MessageDequeued', data: { messageId: continuation.id, from: 'overflow', at: command.now } }];
  const next = state.queue.slot ?? state.queue.overflow[0];
  if (!next) return [];
  return [{ type: 'MessageDequeued', data: { messageId: next.id, from: state.queue.slot ? 'slot' : 'overflow', at: command.now } }];
}
