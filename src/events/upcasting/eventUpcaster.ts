// One step of an event type's schema history: turns the data of version `fromVersion` into version `fromVersion + 1`.
import type { JsonObject } from '../eventStore.js';

export interface EventUpcaster {
  type: string;
  fromVersion: number;
  /** Pure: the same stored data always gives the same result, so replays and rebuilds agree. */
  upcast(data: JsonObject): JsonObject;
}

/** Events stored before versions were recorded are version 1. */
export const FIRST_SCHEMA_VERSION = 1;
