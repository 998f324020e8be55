// SetMemoryEntry and RemoveMemoryEntry: the session's named memory; removing a name it lacks is refused.
import { NotFoundError } from '../../../../errors/ledgerError.js';
import type { JsonObject, JsonValue } from '../../../../events/eventStore.js';
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { requireWritable } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface SetMemoryEntry {
  type: 'SetMemoryEntry';
  name: string;
  value: JsonValue;
  metadata: JsonObject;
  now: string;
}

export interface RemoveMemoryEntry {
  type: 'RemoveMemoryEntry';
  name: string;
  now: string;
}

export function decideSetMemoryEntry(command: SetMemoryEntry, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  return [{ type: 'MemoryEntrySet', data: { name: command.name, value: command.value, metadata: command.metadata, at: command.now } }];
}

export function decideRemoveMemoryEntry(command: RemoveMemoryEntry, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  if (!state.memory.some((entry) => entry.name === command.name)) {
    throw new NotFoundError('MEMORY_ENTRY_NOT_FOUND', `session ${state.sessionId} has no memory entry ${command.name}`, { name: command.name });
  }
  return [{ type: 'MemoryEntryRemoved', data: { name: command.name, at: command.now } }];
}
