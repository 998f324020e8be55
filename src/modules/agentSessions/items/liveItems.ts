// Reading an item history from the end of the log: the newest items first, in pages, without folding the session.
import type { EventStore, JsonObject, RecordedEvent } from '../../../events/eventStore.js';
import { StreamNotFoundError } from '../../../events/eventStoreErrors.js';
import { type SessionStreamEvent, sessionStreamName } from '../../../events/session/sessionEvents.js';

/** An item in the history: its id, its index (from 0), the object as appended, and the event that appended it. */
export interface LiveItem {
  id: string;
  index: number;
  item: JsonObject;
  at: string;
  /** The session whose stream holds the ItemAppended (a fork's parent, for the items the fork started with). */
  sessionId: string;
  revision: number;
}

/** Where a walk goes on: the history's items below `below`, read from `fromRevision` of the session's stream backwards. */
export interface WalkPoint {
  sessionId: string;
  fromRevision: number;
  below: number;
}

export interface WalkOptions {
  /** Stop after this many items. */
  limit: number;
  /** Stop once the items down to this index are read (0: the whole history). */
  downTo?: number;
  /** Stop at the first item this accepts (after taking it). */
  until?: (item: LiveItem) => boolean;
}

export interface WalkResult {
  /** Newest first. */
  items: LiveItem[];
  /** Where the next older page starts; null when the history's first item was read. */
  next: WalkPoint | null;
}

/** Events read at a time: a page holds the items wanted and a few others (turns, checkpoints, removed items). */
const MAX_PAGE = 1_000;
const PAGE_SLACK = 16;

/**
 * The live items below `from.below`, newest first. Every ItemAppended records its index; the history's item at
 * index i is the newest ItemAppended with index i on the current timeline, so walking back from the end of the log
 * takes the first event for each index below the last one taken and skips the rest: items popped or cleared (an
 * index taken again later, or at or above the count), and the events a rollback undid (the walk jumps from a
 * RolledBack to its checkpoint's revision). A fork goes on in its parent's stream at the revision it was forked
 * from. Each page is one read of the stream backwards from a revision: an index range, whatever the log's length.
 */
export async function walkLiveItems(store: EventStore, tenant: string | undefined, from: WalkPoint, options: WalkOptions): Promise<WalkResult> {
  const downTo = options.downTo ?? 0;
  const items: LiveItem[] = [];
  let { sessionId, fromRevision, below } = from;
  while (below > downTo && items.length < options.limit && fromRevision >= 0) {
    const wanted = Math.min(options.limit - items.length, below - downTo);
    const page = await readBackwards(store, sessionStreamName(sessionId, tenant), fromRevision, Math.min(MAX_PAGE, wanted + PAGE_SLACK));
    if (page.length === 0) break;
    let jump: { sessionId: string; fromRevision: number } | null = null;
    for (const recorded of page) {
      fromRevision = recorded.revision - 1;
      const event = { type: recorded.type, data: recorded.data } as unknown as SessionStreamEvent;
      if (event.type === 'ItemAppended' && event.data.position === below - 1) {
        const item: LiveItem = { id: event.data.itemId, index: below - 1, item: event.data.item, at: event.data.at, sessionId, revision: recorded.revision };
        items.push(item);
        below -= 1;
        if (below <= downTo || items.length >= options.limit || options.until?.(item)) return { items, next: nextPoint(sessionId, fromRevision, below) };
      } else if (event.type === 'RolledBack') {
        jump = { sessionId, fromRevision: event.data.targetRevision };
        break;
      } else if (event.type === 'SessionCreated') {
        jump = event.data.forkOf ? { sessionId: event.data.forkOf.sessionId, fromRevision: event.data.forkOf.revision } : { sessionId, fromRevision: -1 };
        break;
      } else if (event.type === 'ItemsCleared') {
        // Nothing before a clear is in the history; a count still above 0 here would be a log this walk cannot read.
        fromRevision = -1;
        break;
      }
    }
    if (jump) ({ sessionId, fromRevision } = jump);
  }
  return { items, next: nextPoint(sessionId, fromRevision, below) };
}

function nextPoint(sessionId: string, fromRevision: number, below: number): WalkPoint | null {
  return below > 0 && fromRevision >= 0 ? { sessionId, fromRevision, below } : null;
}

/**
 * A stream's revisions have no gaps, so the page is also bounded below: the read touches the page's rows whatever plan
 * the database picks (unbounded, a planner without statistics for a long new stream sorted all of it: 40 ms at 100,000).
 */
async function readBackwards(store: EventStore, streamName: string, fromRevision: number, maxCount: number): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(streamName, { direction: 'backwards', fromRevision, toRevision: Math.max(0, fromRevision - maxCount + 1), maxCount });
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}
