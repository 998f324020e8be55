// One redactor per event type of a stream category: a record, so a new event type fails the type check until someone decides what of it is personal.
import type { JsonObject } from '../../../events/eventStore.js';
import { eraseEveryString } from './erasedValues.js';
import type { ErasureContext } from './erasureContext.js';

export type Redactors<Event extends { type: string; data: object }> = {
  [Type in Event['type']]: (data: Extract<Event, { type: Type }>['data'], context: ErasureContext) => Extract<Event, { type: Type }>['data'];
};

/** The event's data as the erasure leaves it. A type the record does not know keeps only its numbers and flags. */
export function redactWith<Event extends { type: string; data: object }>(
  redactors: Redactors<Event>,
  type: string,
  data: JsonObject,
  context: ErasureContext,
): JsonObject {
  if (!Object.hasOwn(redactors, type)) return eraseEveryString(data);
  const redactor = redactors[type as Event['type']] as unknown as (data: JsonObject, context: ErasureContext) => JsonObject;
  return redactor(data, context);
}

/** The data as it was: for events that hold nothing personal (times, counters, ids the service made, enums). */
export const unchanged = <Data>(data: Data): Data => data;
