// MarkResumePending: the conversation's session is kept for its next message, within the freshness window; a
// suspended conversation refuses it.
import { ConflictError } from '../../../../errors/ledgerError.js';
import type { ConversationEvent, ResumeReason } from '../../../../events/conversation/conversationEvents.js';
import { conversationNotFound } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface MarkResumePending {
  type: 'MarkResumePending';
  reason: ResumeReason;
  now: string;
}

export function decideMarkResumePending(command: MarkResumePending, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  if (state.suspended)
    throw new ConflictError('CONVERSATION_SUSPENDED', 'a suspended conversation cannot be marked for resume; its next message starts a new session');
  return [{ type: 'ResumeMarked', data: { reason: command.reason, at: command.now } }];
}
