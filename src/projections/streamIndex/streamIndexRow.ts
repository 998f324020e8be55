// One row per stream: how far it has got, for audit listings and the admin API.
import { EntitySchema } from 'typeorm';

export interface StreamIndexRow {
  streamName: string;
  category: string;
  revision: number;
  eventCount: number;
  lastPosition: number;
  lastEventType: string;
  firstEventAt: Date;
  lastEventAt: Date;
}

// bigint columns come back as strings from pg and numbers from PGlite; the transformer makes both numbers.
const bigintAsNumber = { to: (value: number) => value, from: (value: string | number) => Number(value) };

export const StreamIndexEntity = new EntitySchema<StreamIndexRow>({
  name: 'StreamIndexRow',
  tableName: 'stream_index',
  columns: {
    streamName: { name: 'stream_name', type: 'text', primary: true },
    category: { type: 'text' },
    revision: { type: 'bigint', transformer: bigintAsNumber },
    eventCount: { name: 'event_count', type: 'bigint', transformer: bigintAsNumber },
    lastPosition: { name: 'last_position', type: 'bigint', transformer: bigintAsNumber },
    lastEventType: { name: 'last_event_type', type: 'text' },
    firstEventAt: { name: 'first_event_at', type: 'timestamptz' },
    lastEventAt: { name: 'last_event_at', type: 'timestamptz' },
  },
});
