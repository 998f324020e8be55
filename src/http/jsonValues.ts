// Free-form JSON fields of request bodies (message content, metadata, memory values, queue media), validated
// without copying: zod's z.json() and z.record() rebuild objects by assignment, which turns a `__proto__` member
// into the new object's prototype and so drops it from the value; these keep the parsed value as it arrived.
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../events/eventStore.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Iterative, so that no nesting can overflow the stack (the depth itself is bounded earlier, by JSON_MAX_DEPTH). */
export function isJsonValue(value: unknown): value is JsonValue {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return false;
    } else if (Array.isArray(current)) {
      pending.push(...current);
    } else if (isPlainObject(current)) {
      // Object.values reads own properties, an own `__proto__` member among them.
      pending.push(...Object.values(current));
    } else {
      return false;
    }
  }
  return true;
}

export const jsonValue = z.custom<JsonValue>(isJsonValue, { message: 'Invalid input: expected a JSON value' });
export const jsonObject = z
  .custom<JsonObject>((value) => isPlainObject(value) && isJsonValue(value), { message: 'Invalid input: expected a JSON object' })
  // A custom check has no JSON Schema of its own: the document says what it accepts.
  .meta({ type: 'object' });
