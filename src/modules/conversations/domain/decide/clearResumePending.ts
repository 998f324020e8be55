// ClearResumePending: a completed turn of the current session (or a manual clear, or a drained queue) lifts the
// resume mark; a completed turn also resets the count of interrupted starts.
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import { conversationNotFound } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface ClearResumePending {
  type: 'ClearResumePending';
  reason: 'turn_completed' | 'manual' | 'drained';
  sessionId?: string;
  now: string;
}

export function decideClearResumePending(command: ClearResumePending, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  const clearsCounter = command.reason === 'turn_completed' && state.interruptedStarts > 0;
  if (!state.resumePending && !clearsCounter) return [];
  // A turn of a session the key no longer points at says nothing about the current one.
  if (command.sessionId !== undefined && command.sessionId !== state.sessionId) return [];
  return [{ type: 'ResumeCleared', data: { reason: command.reason, at: command.now } }];
}
