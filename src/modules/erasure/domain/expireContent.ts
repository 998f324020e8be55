// Retention's entry point into erasure: the transcript content of a session's events older than a cutoff, erased in
// place with the erasure's own shapes (erasedMessage: role, numbering and time stay), the rest of each event untouched.
import type { JsonObject } from '../../../events/eventStore.js';
import type { EventRewrite, RewritePlan, StoredEvent } from '../../../events/postgres/eventRedaction.js';
import type { SessionStreamEvent, StoredMessage } from '../../../events/session/sessionEvents.js';
import type { TranscriptMessage } from '../../../events/session/sessionTimeline.js';
import { canonicalJson } from '../../../events/streamStateStore.js';
import { upcastEvent } from '../../../events/upcasting/upcastingEventStore.js';
import { erasedMessage } from './erasedValues.js';

/** How old content must be to expire in one session, and which platform's policy said so. */
export interface ContentCutoff {
  cutoff: string;
  platform: string;
}

export interface SessionContentExpiry extends ContentCutoff {
  streamName: string;
  eventsRewritten: number;
  messagesExpired: number;
  itemsExpired: number;
}

export interface ContentExpiryPlan extends RewritePlan {
  /** Sessions with anything to expire, in stream-name order. */
  sessions: SessionContentExpiry[];
}

/** Metadata key marking an event whose content retention expired (the application's id). */
export const CONTENT_EXPIRED_BY = 'contentExpiredBy';

const isExpired = (message: StoredMessage, cutoff: string) => message.at < cutoff;

/** A message already in its erased form is left as it is: applying the policy twice rewrites nothing the second time. */
function expiredMessage<Message extends StoredMessage>(message: Message, cutoff: string, counter: { messages: number }): Message {
  if (!isExpired(message, cutoff)) return message;
  const erased = erasedMessage(message);
  const kept =
    'slot' in message
      ? { ...erased, slot: (message as unknown as TranscriptMessage).slot, deleted: (message as unknown as TranscriptMessage).deleted }
      : erased;
  if (sameJson(kept, message)) return message;
  counter.messages += 1;
  return kept as Message;
}

/** The event's data with its content older than `cutoff` erased; null for an event type that holds no transcript content. */
function expiredData(event: SessionStreamEvent, cutoff: string, counter: { messages: number; items: number }): JsonObject | null {
  const messages = <Message extends StoredMessage>(list: readonly Message[]) => list.map((message) => expiredMessage(message, cutoff, counter));
  switch (event.type) {
    case 'TurnRecorded':
    case 'TranscriptRewritten':
      return { ...event.data, messages: messages(event.data.messages) } as unknown as JsonObject;
    case 'StatusNoted':
      return { ...event.data, message: expiredMessage(event.data.message, cutoff, counter) } as unknown as JsonObject;
    case 'SessionCreated': {
      // A fork's copy of its parent's transcript holds messages as old as the parent's.
      const starting = event.data.startingState;
      if (!starting) return null;
      return { ...event.data, startingState: { ...starting, transcript: messages(starting.transcript) } } as unknown as JsonObject;
    }
    case 'RolledBack': {
      const { restored } = event.data;
      return {
        ...event.data,
        restored: { ...restored, transcript: { ...restored.transcript, following: messages(restored.transcript.following) } },
      } as unknown as JsonObject;
    }
    case 'ItemAppended': {
      // The item is whatever the agent said, read or ran; its id, position and occurrence are the history's skeleton.
      if (event.data.at >= cutoff || Object.keys(event.data.item).length === 0) return null;
      counter.items += 1;
      return { ...event.data, item: {} } as unknown as JsonObject;
    }
    default:
      return null;
  }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(canonicalJson(a)) === JSON.stringify(canonicalJson(b));

/**
 * What to rewrite in these session streams: every event whose transcript content is older than its session's cutoff
 * (`cutoffOf`; null leaves the session alone), in the current schema version, marked with the application's id.
 * Lifecycle, counters, checkpoints, memory and the tree stay as they are.
 */
export function planContentExpiry(
  streams: ReadonlyMap<string, readonly StoredEvent[]>,
  cutoffOf: (streamName: string, events: readonly StoredEvent[]) => ContentCutoff | null,
  retentionId: string,
): ContentExpiryPlan {
  const events: EventRewrite[] = [];
  const sessions: SessionContentExpiry[] = [];
  for (const [streamName, stored] of [...streams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const policy = cutoffOf(streamName, stored);
    if (!policy) continue;
    const counter = { messages: 0, items: 0 };
    let eventsRewritten = 0;
    for (const event of stored) {
      const upcast = upcastEvent({ id: '', ...event });
      const data = expiredData({ type: upcast.type, data: upcast.data } as unknown as SessionStreamEvent, policy.cutoff, counter);
      if (data === null || sameJson(data, upcast.data)) continue;
      const schemaVersion = upcast.metadata.schemaVersion;
      events.push({
        position: event.position,
        data,
        metadata: { ...event.metadata, ...(schemaVersion === undefined ? {} : { schemaVersion }), [CONTENT_EXPIRED_BY]: retentionId },
      });
      eventsRewritten += 1;
    }
    if (eventsRewritten > 0) sessions.push({ streamName, ...policy, eventsRewritten, messagesExpired: counter.messages, itemsExpired: counter.items });
  }
  return { renames: new Map(), events, sessions };
}
