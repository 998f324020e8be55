// Finding items by id: the newest append of an id (the event store's id index), and whether it is still in the history.
import type { EventStore, RecordedEvent } from '../../../events/eventStore.js';
import type { SessionItemEvent } from '../../../events/session/sessionEvents.js';
import type { ExistingSession } from '../../sessions/domain/sessionState.js';
import { itemEventId } from './itemEventId.js';
import { type LiveItem, walkLiveItems } from './liveItems.js';

type ItemAppendedData = Extract<SessionItemEvent, { type: 'ItemAppended' }>['data'];

/** The newest ItemAppended of this id in the stream (each append after a removal is the next occurrence), or undefined. */
export async function newestAppendOf(store: EventStore, streamName: string, itemId: string): Promise<RecordedEvent | undefined> {
  let newest: RecordedEvent | undefined;
  for (let occurrence = 0; ; occurrence++) {
    const found = await store.findEvent(streamName, itemEventId(streamName, itemId, occurrence));
    if (!found) return newest;
    newest = found;
  }
}

export function appendedData(event: RecordedEvent): ItemAppendedData {
  return event.data as unknown as ItemAppendedData;
}

/**
 * The history as `state` stands, for questions about items: an item appended in the session's own stream after the
 * history last shrank is in it without a read; any other is looked for by walking back from the end.
 */
export class ItemHistory {
  private walked: Map<string, LiveItem> | undefined;
  private walkedDownTo = Number.POSITIVE_INFINITY;

  constructor(
    private readonly store: EventStore,
    private readonly tenant: string | undefined,
    private readonly state: ExistingSession,
  ) {}

  /** Whether the item this ItemAppended (of the session's own stream) appended is still in the history. */
  async holds(appended: RecordedEvent): Promise<boolean> {
    const { position } = appendedData(appended);
    if (position >= this.state.itemCount) return false;
    if (appended.revision > this.state.itemsShrunkAt) return true;
    const live = await this.liveDownTo(position);
    return live.get(`${this.state.sessionId}@${appended.revision}`) !== undefined;
  }

  /**
   * The item with this id in the history as `state` stands (now, or at an earlier revision), or undefined. The id
   * index finds the id's newest append in the session's own stream; an id never appended there is a miss that reads
   * nothing more, outside a fork.
   */
  async find(streamName: string, itemId: string): Promise<LiveItem | undefined> {
    const newest = await newestAppendOf(this.store, streamName, itemId);
    // Read at an earlier revision, the newest append may be newer than the history asked about.
    if (newest && newest.revision <= this.state.revision && (await this.holds(newest))) {
      const data = appendedData(newest);
      return { id: data.itemId, index: data.position, item: data.item, at: data.at, sessionId: this.state.sessionId, revision: newest.revision };
    }
    if (newest === undefined && this.state.forkOf === null) return undefined;
    // One a fork started with (its parent's stream), or an older append of the id that a rollback restored or that an
    // earlier revision still held: look for it from the end.
    const { items } = await walkLiveItems(this.store, this.tenant, this.head(), { limit: Number.POSITIVE_INFINITY, until: (item) => item.id === itemId });
    const last = items[items.length - 1];
    return last?.id === itemId ? last : undefined;
  }

  head() {
    return { sessionId: this.state.sessionId, fromRevision: this.state.revision, below: this.state.itemCount };
  }

  private async liveDownTo(position: number): Promise<Map<string, LiveItem>> {
    if (!this.walked || position < this.walkedDownTo) {
      const { items } = await walkLiveItems(this.store, this.tenant, this.head(), { limit: Number.POSITIVE_INFINITY, downTo: position });
      this.walked = new Map(items.map((item) => [`${item.sessionId}@${item.revision}`, item]));
      this.walkedDownTo = position;
    }
    return this.walked;
  }
}
