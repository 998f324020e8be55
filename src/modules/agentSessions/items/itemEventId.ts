// An item's event id, derived from its session's stream and its own id: what makes appending it again write nothing.
import { createHash } from 'node:crypto';

/**
 * `occurrence` counts the earlier appends of the same id that were removed since (popped, cleared, rolled back):
 * an id appended again after its removal is a new event, while a retry of a stored one finds the same id and is not
 * written twice.
 */
export function itemEventId(streamName: string, itemId: string, occurrence: number): string {
  return derivedEventId(['item', streamName, itemId, occurrence]);
}

/** An event id derived from what names the event: shaped as an RFC 9562 version-8 UUID, the form every store takes. */
export function derivedEventId(parts: readonly unknown[]): string {
  const hex = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
