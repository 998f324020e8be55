// ResetConversation (a gateway's /new): bind a new session on the conversation's own origin, and empty its queue.
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import { bind, clearQueue, conversationNotFound } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface ResetConversation {
  type: 'ResetConversation';
  newSessionId: string;
  currentSessionHadActivity: boolean;
  now: string;
  displayName?: string;
}

export function decideResetConversation(command: ResetConversation, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  const bound = bind(state, command.newSessionId, 'reset', command.currentSessionHadActivity, state.origin, state.gatewayId, command.now);
  const renamed: ConversationEvent =
    command.displayName === undefined || bound.type !== 'SessionBound' ? bound : { ...bound, data: { ...bound.data, displayName: command.displayName } };
  return [renamed, ...clearQueue(state, 'all', 'reset', command.now)];
}
