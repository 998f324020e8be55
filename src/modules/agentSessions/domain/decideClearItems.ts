// Clearing the history: one ItemsCleared; the items stay in the log for audit, out of the history.
import type { SessionItemEvent } from '../../../events/session/sessionEvents.js';
import { requireWritable } from '../../sessions/domain/sessionDecider.js';
import type { SessionState } from '../../sessions/domain/sessionState.js';

export interface ClearItems {
  type: 'ClearItems';
  now: string;
}

export function decideClearItems(command: ClearItems, state: SessionState): SessionItemEvent[] {
  requireWritable(state);
  if (state.itemCount === 0) return [];
  return [{ type: 'ItemsCleared', data: { clearedCount: state.itemCount, at: command.now } }];
}
