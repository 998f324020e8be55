// ImportRoutingEntry: only the importer sends it, to lay the entry as the imported gateway last wrote it over the
// conversation it replayed.
import type { ConversationEvent, ImportedRoutingEntry } from '../../../../events/conversation/conversationEvents.js';
import { conversationNotFound } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

/** Only the importer sends it: the entry as the imported gateway last wrote it. */
export interface ImportRoutingEntry {
  type: 'ImportRoutingEntry';
  entry: Omit<ImportedRoutingEntry, 'at'>;
  now: string;
}

export function decideImportRoutingEntry(command: ImportRoutingEntry, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  return [{ type: 'RoutingEntryImported', data: { ...command.entry, at: command.now } }];
}
