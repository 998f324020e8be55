// What a lifecycle-stream reader receives for one event: the event as stored, its position doubling as the SSE id.
import type { RecordedEvent } from '../../events/eventStore.js';
import type { ServerSentMessage } from '../../http/serverSentEventStreams.js';

export interface LifecycleEventData {
  position: number;
  streamName: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: unknown;
  createdAt: string;
}

export function lifecycleEventData(event: RecordedEvent): LifecycleEventData {
  return {
    position: event.position,
    streamName: event.streamName,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    createdAt: event.createdAt.toISOString(),
  };
}

export function lifecycleEventMessage(event: RecordedEvent): ServerSentMessage {
  return { id: event.position, event: event.type, data: lifecycleEventData(event) };
}
