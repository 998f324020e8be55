// Which events a lifecycle-stream reader asked for and may see: types, one conversation, and the reader's tenant.
import { ValidationError } from '../../errors/ledgerError.js';
import type { RecordedEvent } from '../../events/eventStore.js';
import { KNOWN_EVENT_TYPES, unknownEventTypes } from './knownEventTypes.js';
import { eventTenant } from './eventTenant.js';

export interface LifecycleEventFilter {
  /** Event types to keep; empty: every type. */
  types: ReadonlySet<string>;
  /** Only events of this conversation: its own stream, its sessions', its runtime binding's and sessions', its jobs'. */
  sessionKey?: string;
  /** Only events of this tenant's streams ('' the default tenant's); undefined: every tenant's (admin tokens). */
  tenant?: string;
}

/** The types a reader asked for, refused (`400 UNKNOWN_EVENT_TYPE`, naming the known ones) if one is never written. */
export function knownEventTypeSet(types: readonly string[]): ReadonlySet<string> {
  const unknown = unknownEventTypes(types);
  if (unknown.length > 0) {
    throw new ValidationError(
      `unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the known types are ${KNOWN_EVENT_TYPES.join(', ')}`,
      { unknownTypes: unknown, knownTypes: KNOWN_EVENT_TYPES },
      'UNKNOWN_EVENT_TYPE',
    );
  }
  return new Set(types);
}

/** Everything but the session key: cheap, decided from the event alone. */
export function passesTypeAndTenant(filter: LifecycleEventFilter, event: RecordedEvent): boolean {
  if (filter.types.size > 0 && !filter.types.has(event.type)) return false;
  // The stream says whose an event is, whoever wrote it (a request, the ticker, the watchdog, an import); the
  // service's shared streams belong to no tenant.
  if (filter.tenant !== undefined && eventTenant(event) !== filter.tenant) return false;
  return true;
}

/** `sessionKeyOf` is asked only when the filter names a conversation and the cheap checks passed. */
export async function matchesLifecycleFilter(
  filter: LifecycleEventFilter,
  event: RecordedEvent,
  sessionKeyOf: (event: RecordedEvent) => Promise<string | null>,
): Promise<boolean> {
  if (!passesTypeAndTenant(filter, event)) return false;
  if (filter.sessionKey === undefined) return true;
  return (await sessionKeyOf(event)) === filter.sessionKey;
}
