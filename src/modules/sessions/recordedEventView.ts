// An event as the audit routes and the ledger CLI show it.
import type { RecordedEvent } from '../../events/eventStore.js';

export function recordedEventView(event: RecordedEvent) {
  return {
    revision: event.revision,
    position: event.position,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    createdAt: event.createdAt.toISOString(),
  };
}
