// RequestInterrupt: a message queued to interrupt asks the turn in flight to stop, once per turn; nothing when none runs.
import type { RuntimeSessionEvent } from '../../../../events/runtime/runtimeSessionEvents.js';
import type { ExistingRuntimeSession } from '../runtimeSessionState.js';

export interface RequestInterrupt {
  type: 'RequestInterrupt';
  messageId: string;
  /** The turn running when the message arrived; a later turn is not the one it interrupts. */
  turnId?: string;
  now: string;
}

export function decideRequestInterrupt(command: RequestInterrupt, state: ExistingRuntimeSession): RuntimeSessionEvent[] {
  const turnId = state.currentTurnId;
  // Asked once per turn: a burst of interrupting messages is one request, and a retry writes nothing.
  if (turnId === null || state.interruptRequested?.turnId === turnId) return [];
  // The turn the message arrived during has ended; the one running now may be the one answering it.
  if (command.turnId !== undefined && command.turnId !== turnId) return [];
  return [{ type: 'InterruptRequested', data: { turnId, messageId: command.messageId, at: command.now } }];
}
