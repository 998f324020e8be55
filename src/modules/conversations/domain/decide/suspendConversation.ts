// SuspendConversation (/stop): the next message starts a new session; the message that would run next is discarded.
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import { clearQueue, conversationNotFound } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface SuspendConversation {
  type: 'SuspendConversation';
  reason: string;
  now: string;
}

export function decideSuspendConversation(command: SuspendConversation, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  if (state.suspended) return [];
  // /stop discards the message that would run next, as Hermes' does; the rest of the queue stays.
  return [{ type: 'Suspended', data: { reason: command.reason, at: command.now } }, ...clearQueue(state, 'slot', 'suspend', command.now)];
}
