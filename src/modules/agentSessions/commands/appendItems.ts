// POST /v1/sessions/{id}/items: load the session, look up the items' ids, decide, append; again on a conflict.
import { randomBytes } from 'node:crypto';
import type { EventMetadata, JsonObject } from '../../../events/eventStore.js';
import { currentIdempotentWrite } from '../../../events/idempotentWrite.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { requireWritable, sessionDecider, sessionNotFound } from '../../sessions/domain/sessionDecider.js';
import type { ExistingSession, SessionState } from '../../sessions/domain/sessionState.js';
import { decideAppendItems, type ItemToAppend } from '../domain/decideAppendItems.js';
import { appendedData, ItemHistory, newestAppendOf } from '../items/itemLookup.js';
import { decideUntilWritten, type ItemWriteContext } from './itemWriteContext.js';
import { appendParts, decideStateParts, noStateDeltas, type StateDeltas } from './stateChanges.js';

export interface AppendItemsRequest {
  items: JsonObject[];
  /** Each item's id, where it has one (the caller read it from the item); null: the service names it. */
  itemIds: Array<string | null>;
  /** Changed in the same append as the items, and only when an item is appended (a retry changes nothing twice). */
  states?: StateDeltas;
}

export interface AppendItemsResult {
  /** Every item of the request, in order: its id, its index in the history, and whether this request stored it. */
  items: Array<{ id: string; index: number | null; appended: boolean }>;
  state: ExistingSession;
  revision: number;
  position: number;
}

export async function appendItems(
  context: ItemWriteContext,
  sessionId: string,
  tenant: string | undefined,
  request: AppendItemsRequest,
  metadata: EventMetadata,
): Promise<AppendItemsResult> {
  const streamName = sessionStreamName(sessionId, tenant);
  const keyed = currentIdempotentWrite();
  // A keyed request names its items the same on every attempt, so a retry finds what an earlier attempt stored.
  const named = request.itemIds.map((id) => id ?? `i_${keyed ? keyed.chosenHex('item-id', 24) : randomBytes(12).toString('hex')}`);
  return decideUntilWritten(async () => {
    const loaded = await context.streams.load(streamName, sessionDecider);
    const { state } = loaded;
    if (state.status === 'absent') throw sessionNotFound(sessionId);
    requireWritable(state);
    const history = new ItemHistory(context.store, tenant, state);
    const toAppend: ItemToAppend[] = [];
    const found = new Map<string, number | null>();
    const decided = new Set<string>();
    for (const [at, itemId] of named.entries()) {
      if (decided.has(itemId)) continue;
      decided.add(itemId);
      // A name this request made up at random was never stored: no look-up.
      const lookedUp = !(request.itemIds[at] === null && !keyed);
      const newest = lookedUp ? await newestAppendOf(context.store, streamName, itemId) : undefined;
      // The newest append is the common answer; an older one a rollback restored, or one a fork inherited, takes a walk.
      const held =
        newest && (await history.holds(newest))
          ? appendedData(newest).position
          : lookedUp && (newest !== undefined || state.forkOf !== null)
            ? (await history.find(streamName, itemId))?.index
            : undefined;
      if (held !== undefined) found.set(itemId, held);
      else toAppend.push({ itemId, item: request.items[at]!, occurrence: newest ? appendedData(newest).occurrence + 1 : 0 });
    }
    const events = decideAppendItems({ type: 'AppendItems', streamName, items: toAppend, now: context.now() }, state);
    const appendedAt = new Map(events.map((event) => [event.data.itemId, event.data.position]));
    const answer = (written: ExistingSession, revision: number, position: number): AppendItemsResult => ({
      items: named.map((id) => ({ id, index: appendedAt.get(id) ?? found.get(id) ?? null, appended: appendedAt.has(id) })),
      state: written,
      revision,
      position,
    });
    if (events.length === 0) return answer(state, loaded.revision, loaded.position);
    if (!noStateDeltas(request.states)) {
      const stateParts = await decideStateParts(context, tenant, state, request.states!, events[0]!.id);
      const results = await appendParts(context, [{ streamName, revision: loaded.revision, events }, ...stateParts], metadata);
      if (!results) return undefined;
      const written = events.reduce((folded, event) => sessionDecider.evolve(folded, event), state as SessionState) as ExistingSession;
      return answer(written, results[0]!.nextExpectedRevision, Math.max(...results.map((result) => result.position)));
    }
    const result = await context.streams.appendDecided(streamName, sessionDecider, loaded, events, metadata);
    // Stored meanwhile by another attempt with the same ids: decide again, on the stream as it is now.
    if (!result.written) return undefined;
    return answer(result.state as ExistingSession, result.revision, result.position);
  });
}
