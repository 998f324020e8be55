// Removing the last item: an ItemPopped naming the ItemAppended it removes, which the caller read from the log.
import type { SessionItemEvent } from '../../../events/session/sessionEvents.js';
import { requireWritable } from '../../sessions/domain/sessionDecider.js';
import type { SessionState } from '../../sessions/domain/sessionState.js';
import type { LiveItem } from '../items/liveItems.js';

export interface PopItem {
  type: 'PopItem';
  /** The history's last item as read at the state's revision; null when the history is empty. */
  last: LiveItem | null;
  now: string;
}

export function decidePopItem(command: PopItem, state: SessionState): SessionItemEvent[] {
  requireWritable(state);
  const { last } = command;
  if (last === null || state.itemCount === 0) return [];
  if (last.index !== state.itemCount - 1) throw new Error(`the item read as last is at ${last.index}, but the history holds ${state.itemCount}`);
  const elsewhere = last.sessionId === state.sessionId ? {} : { sessionId: last.sessionId };
  return [{ type: 'ItemPopped', data: { itemId: last.id, position: last.index, revision: last.revision, ...elsewhere, at: command.now } }];
}
