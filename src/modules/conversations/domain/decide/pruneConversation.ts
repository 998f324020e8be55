// PruneConversation: forget a routing entry idle since before the cutoff, unless something still waits on it; the
// key and the sessions it pointed at stay.
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import type { ConversationState } from '../conversationState.js';

export interface PruneConversation {
  type: 'PruneConversation';
  olderThan: string;
  now: string;
}

export function decidePruneConversation(command: PruneConversation, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent' || state.suspended) return [];
  if (state.queue.slot || state.queue.overflow.length > 0) return [];
  // Hermes' prune_old_entries never drops a session with an active background process; the reset guard's
  // bg_process_max_age_hours cut-off is for resets only: a pruned key would lose the process's conversation.
  if (state.backgroundProcessSince !== null) return [];
  if (Date.parse(state.updatedAt) >= Date.parse(command.olderThan)) return [];
  return [{ type: 'ConversationPruned', data: { idleSince: state.updatedAt, at: command.now } }];
}
