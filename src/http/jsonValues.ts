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

/** A JSON scalar (finite numbers only), or an array or object still to look into. */
function scalarOrContainer(value: unknown): 'scalar' | 'container' | 'neither' {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return 'scalar';
  if (typeof value === 'number') return Number.isFinite(value) ? 'scalar' : 'neither';
  return Array.isArray(value) || isPlainObject(value) ? 'container' : 'neither';
}

/**
 * Iterative, so that no nesting can overflow the stack (the depth itself is bounded earlier, by JSON_MAX_DEPTH).
 * Members are looked at one at a time and only containers wait their turn: spreading a million-element array or
 * object into one call overflows the stack too, and queueing every scalar costs its time in garbage collection.
 */
export function isJsonValue(value: unknown): value is JsonValue {
  const first = scalarOrContainer(value);
  if (first !== 'container') return first === 'scalar';
  const pending: object[] = [value as object];
  const admits = (child: unknown): boolean => {
    const kind = scalarOrContainer(child);
    if (kind === 'container') pending.push(child as object);
    return kind !== 'neither';
  };
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (Array.isArray(current)) {
      const items: unknown[] = current;
      for (let index = 0; index < items.length; index++) if (!admits(items[index])) return false;
    } else {
      // Own properties, an own `__proto__` member among them.
      const members = current as Record<string, unknown>;
      for (const key of Object.keys(members)) if (!admits(members[key])) return false;
    }
  }
  return true;
}

export const jsonValue = z.custom<JsonValue>(isJsonValue, { message: 'Invalid input: expected a JSON value' });
export const jsonObject = z
  .custom<JsonObject>((value) => isPlainObject(value) && isJsonValue(value), { message: 'Invalid input: expected a JSON object' })
  // A custom check has no JSON Schema of its own: the document says what it accepts.
  .meta({ type: 'object' });
