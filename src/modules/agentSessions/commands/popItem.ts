// POST /v1/sessions/{id}/items/pop: read the last item from the end of the log, decide its removal, append; again on a conflict.
import type { EventMetadata, EventStore } from '../../../events/eventStore.js';
import { currentIdempotentWrite } from '../../../events/idempotentWrite.js';
import { type SessionItemEvent, sessionStreamName } from '../../../events/session/sessionEvents.js';
import { requireWritable, sessionDecider, sessionNotFound } from '../../sessions/domain/sessionDecider.js';
import type { ExistingSession } from '../../sessions/domain/sessionState.js';
import { decidePopItem } from '../domain/decidePopItem.js';
import { appendedData } from '../items/itemLookup.js';
import { type LiveItem, walkLiveItems } from '../items/liveItems.js';
import { decideUntilWritten, type ItemWriteContext } from './itemWriteContext.js';

export interface PopItemResult {
  item: LiveItem | null;
  state: ExistingSession;
  revision: number;
  position: number;
}

type ItemPoppedData = Extract<SessionItemEvent, { type: 'ItemPopped' }>['data'];

export async function popItem(context: ItemWriteContext, sessionId: string, tenant: string | undefined, metadata: EventMetadata): Promise<PopItemResult> {
  const streamName = sessionStreamName(sessionId, tenant);
  const keyed = currentIdempotentWrite();
  // A keyed pop has one event id on every attempt: a retry after a pop that was stored answers that pop, never a second.
  const eventId = keyed?.eventId(streamName, keyed.nextAppend(streamName), 0);
  const earlier = async (): Promise<PopItemResult | undefined> => {
    const stored = eventId === undefined ? undefined : await context.store.findEvent(streamName, eventId);
    if (!stored) return undefined;
    const loaded = await context.streams.load(streamName, sessionDecider);
    const state = loaded.state as ExistingSession;
    return {
      item: await poppedItem(context.store, tenant, sessionId, stored.data as unknown as ItemPoppedData),
      state,
      revision: loaded.revision,
      position: loaded.position,
    };
  };
  if (keyed?.recovering) {
    const answered = await earlier();
    if (answered) return answered;
  }
  return decideUntilWritten(async () => {
    const loaded = await context.streams.load(streamName, sessionDecider);
    const { state } = loaded;
    if (state.status === 'absent') throw sessionNotFound(sessionId);
    requireWritable(state);
    const head = { sessionId, fromRevision: loaded.revision, below: state.itemCount };
    const last = state.itemCount === 0 ? null : ((await walkLiveItems(context.store, tenant, head, { limit: 1 })).items[0] ?? null);
    const events = decidePopItem({ type: 'PopItem', last, now: context.now() }, state).map((event) =>
      eventId === undefined ? event : { ...event, id: eventId },
    );
    if (events.length === 0) return { item: null, state, revision: loaded.revision, position: loaded.position };
    const result = await context.streams.appendDecided(streamName, sessionDecider, loaded, events, metadata);
    if (!result.written) return earlier();
    return { item: last, state: result.state as ExistingSession, revision: result.revision, position: result.position };
  });
}

/** The item an ItemPopped removed, read from the event that appended it. */
async function poppedItem(store: EventStore, tenant: string | undefined, sessionId: string, popped: ItemPoppedData): Promise<LiveItem | null> {
  const owner = popped.sessionId ?? sessionId;
  const [appended] = await store.readStream(sessionStreamName(owner, tenant), { fromRevision: popped.revision, maxCount: 1 });
  if (!appended || appended.type !== 'ItemAppended') return null;
  const data = appendedData(appended);
  return { id: data.itemId, index: data.position, item: data.item, at: data.at, sessionId: owner, revision: appended.revision };
}
