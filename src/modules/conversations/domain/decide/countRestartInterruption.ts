// CountRestartInterruption: a gateway started uncleanly while the conversation was active; counted once per boot,
// it marks the conversation for resume, or suspends it once it has been active across too many starts in a row.
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import { clearQueue } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface CountRestartInterruption {
  type: 'CountRestartInterruption';
  bootId: string;
  stuckThreshold: number;
  now: string;
}

export function decideCountRestartInterruption(command: CountRestartInterruption, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent' || state.suspended || state.lastInterruptedBootId === command.bootId) return [];
  const count = state.interruptedStarts + 1;
  const counted: ConversationEvent = { type: 'RestartInterrupted', data: { bootId: command.bootId, count, at: command.now } };
  // Active across this many unclean starts in a row: likely the agent crashes the gateway. A clean slate.
  if (count >= command.stuckThreshold) {
    return [counted, { type: 'Suspended', data: { reason: 'stuck_loop', at: command.now } }, ...clearQueue(state, 'slot', 'stuck_loop', command.now)];
  }
  if (state.resumePending) return [counted];
  return [counted, { type: 'ResumeMarked', data: { reason: 'restart_interrupted', at: command.now } }];
}
