// Reading the retention log: each application as it journals it, begun (content rewritten) and completed or not.
import type { EventStore, RecordedEvent } from '../../events/eventStore.js';
import {
  RETENTION_LOG_STREAM,
  type RetentionAppliedData,
  type RetentionLogEvent,
  type RetentionResultData,
} from '../../events/retention/retentionLogEvents.js';

export interface JournaledRetention {
  retentionId: string;
  /** Its RetentionApplied records, one per batch of sessions. */
  parts: RetentionAppliedData[];
  completed?: RetentionResultData;
}

export async function retentionLogAfter(store: EventStore, afterRevision: number): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(RETENTION_LOG_STREAM, { fromRevision: afterRevision + 1 });
  } catch (error) {
    if ((error as { code?: string }).code === 'STREAM_NOT_FOUND') return [];
    throw error;
  }
}

/** Every application the log records, oldest first, each with its completion when there is one. */
export async function journaledRetentions(store: EventStore): Promise<JournaledRetention[]> {
  const byId = new Map<string, JournaledRetention>();
  for (const event of await retentionLogAfter(store, -1)) {
    const logged = { type: event.type, data: event.data } as unknown as RetentionLogEvent;
    const journaled = byId.get(logged.data.retentionId) ?? { retentionId: logged.data.retentionId, parts: [] };
    byId.set(logged.data.retentionId, journaled);
    switch (logged.type) {
      case 'RetentionApplied':
        journaled.parts.push(logged.data);
        break;
      case 'RetentionCompleted':
        journaled.completed ??= logged.data.result;
        break;
      default: {
        const unknown: never = logged;
        void unknown;
      }
    }
  }
  return [...byId.values()];
}
