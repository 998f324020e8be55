// Projects every event into its stream's row of the stream index.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { BatchRows } from '../batchRows.js';
import { type Projection, projectEach } from '../projection.js';
import { StreamIndexEntity } from './streamIndexRow.js';

/** The category of `conversation-abc` is `conversation`, as in EventStoreDB's $by_category. */
export function streamCategory(streamName: string): string {
  const dash = streamName.indexOf('-');
  return dash < 0 ? streamName : streamName.slice(0, dash);
}

export const streamIndexProjection: Projection = {
  name: 'stream-index',
  tables: ['stream_index'],
  entities: [StreamIndexEntity],
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const rows = new BatchRows(StreamIndexEntity, ['streamName']);
    await rows.load(
      manager,
      events.map((event) => ({ streamName: event.streamName })),
    );
    await projectEach('stream-index', events, (event) => {
      const existing = rows.get(event);
      rows.set({
        streamName: event.streamName,
        category: streamCategory(event.streamName),
        revision: event.revision,
        eventCount: (existing?.eventCount ?? 0) + 1,
        lastPosition: event.position,
        lastEventType: event.type,
        firstEventAt: existing?.firstEventAt ?? event.createdAt,
        lastEventAt: event.createdAt,
      });
    });
    await rows.flush(manager);
  },
};
