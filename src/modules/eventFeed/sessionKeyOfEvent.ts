// Which conversation (session key) an event belongs to: from its stream's name, its own data, or its stream's first event.
import type { RecordedEvent } from '../../events/eventStore.js';
import { streamScope } from '../../events/streamScope.js';

/** A session key; null: the event belongs to no conversation; undefined: only the stream's first event can tell. */
export type SessionKeyAnswer = string | null | undefined;

// Longer prefixes first: `runtime-binding-` is also a `runtime-`.
const KEYED_BY_NAME = ['conversation-', 'runtime-binding-'] as const;
const KEYED_BY_FIRST_EVENT = ['session-', 'runtime-', 'job-'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the stream's name says: conversation and runtime-binding streams carry the key after their prefix. */
export function sessionKeyFromStreamName(streamName: string): SessionKeyAnswer {
  const { name } = streamScope(streamName);
  for (const prefix of KEYED_BY_NAME) if (name.startsWith(prefix)) return name.slice(prefix.length);
  for (const prefix of KEYED_BY_FIRST_EVENT) if (name.startsWith(prefix)) return undefined;
  return null;
}

/**
 * What the event's own data says. A session's and a runtime session's first event names its key; a job's
 * definition and each fire carry the chat it was created from (`task.origin.sessionKey`), which may be none.
 */
export function sessionKeyFromEventData(event: RecordedEvent): SessionKeyAnswer {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'SessionCreated':
    case 'RuntimeSessionStarted':
      return typeof data.sessionKey === 'string' ? data.sessionKey : null;
    case 'JobScheduled':
    case 'JobFired': {
      const origin = isRecord(data.task) ? data.task.origin : undefined;
      return isRecord(origin) && typeof origin.sessionKey === 'string' ? origin.sessionKey : null;
    }
    default:
      return undefined;
  }
}
