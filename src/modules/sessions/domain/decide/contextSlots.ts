// CreateSlot and SwitchSlot: the session's context slots (separate transcripts in one session); a name is created
// once, and switching to the current slot writes nothing.
import { ConflictError, NotFoundError } from '../../../../errors/ledgerError.js';
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { requireWritable } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface CreateSlot {
  type: 'CreateSlot';
  name: string;
  now: string;
}

export interface SwitchSlot {
  type: 'SwitchSlot';
  name: string;
  now: string;
}

export function decideCreateSlot(command: CreateSlot, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  if (state.slots.some((slot) => slot.name === command.name)) {
    throw new ConflictError('SLOT_EXISTS', `session ${state.sessionId} already has a context slot ${command.name}`, { name: command.name });
  }
  return [{ type: 'SlotCreated', data: { name: command.name, at: command.now } }];
}

export function decideSwitchSlot(command: SwitchSlot, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  if (!state.slots.some((slot) => slot.name === command.name)) {
    throw new NotFoundError('SLOT_NOT_FOUND', `session ${state.sessionId} has no context slot ${command.name}`, { name: command.name });
  }
  if (state.currentSlot === command.name) return [];
  return [{ type: 'SlotSwitched', data: { name: command.name, previous: state.currentSlot, at: command.now } }];
}
