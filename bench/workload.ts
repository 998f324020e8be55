// The events a bench writes, planned before the clock starts so the store and the baseline write the same rows.
import { randomUUID } from 'node:crypto';
import type { EventMetadata, JsonObject } from '../src/events/eventStore.js';

/** One append: `events` go to `streamName` starting at `revision`, which the stream must be at minus one. */
export interface PlannedAppend {
  streamName: string;
  revision: number;
  events: PlannedEvent[];
}

export interface PlannedEvent {
  id: string;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
}

export interface WorkloadShape {
  /** Distinguishes this measurement's streams from every other one's in the same log. */
  label: string;
  writers: number;
  /** Events across all writers. */
  events: number;
  eventsPerAppend: number;
  /** Appends a stream takes before its writer moves to a new one (a session has tens of events). */
  appendsPerStream: number;
}

/** Each writer's appends in the order it makes them; writers never share a stream, so revisions are exact. */
export function planWorkload(shape: WorkloadShape): PlannedAppend[][] {
  const appends = shape.events / shape.eventsPerAppend;
  if (!Number.isInteger(appends)) throw new Error(`${shape.events} events do not split into appends of ${shape.eventsPerAppend}`);
  // Writers take turns, so their shares differ by at most one append.
  return Array.from({ length: shape.writers }, (_, writer) =>
    Array.from({ length: Math.floor(appends / shape.writers) + (writer < appends % shape.writers ? 1 : 0) }, (_, append) => {
      const streamName = `session-${shape.label}-w${writer}-s${Math.floor(append / shape.appendsPerStream)}`;
      const revision = (append % shape.appendsPerStream) * shape.eventsPerAppend;
      const events = Array.from({ length: shape.eventsPerAppend }, (_, index) => sessionLikeEvent(streamName, revision + index));
      return { streamName, revision, events };
    }),
  );
}

// About 300 bytes of JSON, shaped like the ledger's own session events.
function sessionLikeEvent(streamName: string, revision: number): PlannedEvent {
  return {
    id: randomUUID(),
    type: revision === 0 ? 'SessionStarted' : 'SessionTurnRecorded',
    data: {
      sessionKey: `${streamName}:${revision}`,
      source: { channel: 'whatsapp', accountId: 'acct-42', peer: '+4915112345678' },
      turn: revision,
      tokens: { prompt: 1200 + revision, completion: 300 },
      status: 'active',
    },
    metadata: { correlationId: randomUUID(), actor: 'bench', schemaVersion: 1 },
  };
}
