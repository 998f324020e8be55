// NoteStatus: a system line in the transcript (a reset notice, a status); a courtesy, so a session that has ended
// or gone simply does not get it.
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { storedMessages } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface NoteStatus {
  type: 'NoteStatus';
  text: string;
  reason: string;
  now: string;
}

export function decideNoteStatus(command: NoteStatus, state: SessionState): SessionStreamEvent[] {
  if (state.status !== 'active') return [];
  const [message] = storedMessages(
    [{ role: 'system', content: command.text, metadata: { status: command.reason } }],
    state.nextMessageIndex,
    state.turnCount,
    command.now,
  );
  return [{ type: 'StatusNoted', data: { message: message!, reason: command.reason, at: command.now, slot: state.currentSlot } }];
}
