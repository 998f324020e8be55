// DELETE /v1/sessions/{id}/items: load, decide, append; again on a conflict.
import type { EventMetadata } from '../../../events/eventStore.js';
import { currentIdempotentWrite } from '../../../events/idempotentWrite.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { requireWritable, sessionDecider, sessionNotFound } from '../../sessions/domain/sessionDecider.js';
import type { ExistingSession } from '../../sessions/domain/sessionState.js';
import { decideClearItems } from '../domain/decideClearItems.js';
import { decideUntilWritten, type ItemWriteContext } from './itemWriteContext.js';

export interface ClearItemsResult {
  clearedCount: number;
  state: ExistingSession;
  revision: number;
  position: number;
}

export async function clearItems(context: ItemWriteContext, sessionId: string, tenant: string | undefined, metadata: EventMetadata): Promise<ClearItemsResult> {
  const streamName = sessionStreamName(sessionId, tenant);
  const keyed = currentIdempotentWrite();
  // One event id on every attempt of a keyed clear: a retry after a stored clear answers it and clears nothing more.
  const eventId = keyed?.eventId(streamName, keyed.nextAppend(streamName), 0);
  const earlier = async (): Promise<ClearItemsResult | undefined> => {
    const stored = eventId === undefined ? undefined : await context.store.findEvent(streamName, eventId);
    if (!stored) return undefined;
    const loaded = await context.streams.load(streamName, sessionDecider);
    const clearedCount = (stored.data as { clearedCount: number }).clearedCount;
    return { clearedCount, state: loaded.state as ExistingSession, revision: loaded.revision, position: loaded.position };
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
    const events = decideClearItems({ type: 'ClearItems', now: context.now() }, state).map((event) =>
      eventId === undefined ? event : { ...event, id: eventId },
    );
    if (events.length === 0) return { clearedCount: 0, state, revision: loaded.revision, position: loaded.position };
    const result = await context.streams.appendDecided(streamName, sessionDecider, loaded, events, metadata);
    if (!result.written) return earlier();
    return { clearedCount: state.itemCount, state: result.state as ExistingSession, revision: result.revision, position: result.position };
  });
}
