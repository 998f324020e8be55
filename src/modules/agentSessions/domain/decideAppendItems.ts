// Appending items to a session's history: one ItemAppended each, numbered after the last, its id derived from the item's.
import type { JsonObject } from '../../../events/eventStore.js';
import type { SessionItemEvent } from '../../../events/session/sessionEvents.js';
import { requireWritable } from '../../sessions/domain/sessionDecider.js';
import type { SessionState } from '../../sessions/domain/sessionState.js';
import { itemEventId } from '../items/itemEventId.js';

export interface ItemToAppend {
  itemId: string;
  item: JsonObject;
  /** Earlier appends of this id, all removed since (the caller looked them up: an id still in the history is not here). */
  occurrence: number;
}

export interface AppendItems {
  type: 'AppendItems';
  streamName: string;
  items: ItemToAppend[];
  now: string;
}

export type ItemAppended = Extract<SessionItemEvent, { type: 'ItemAppended' }> & { id: string };

export function decideAppendItems(command: AppendItems, state: SessionState): ItemAppended[] {
  requireWritable(state);
  return command.items.map(({ itemId, item, occurrence }, offset) => ({
    id: itemEventId(command.streamName, itemId, occurrence),
    type: 'ItemAppended',
    data: { itemId, position: state.itemCount + offset, occurrence, item, at: command.now },
  }));
}
