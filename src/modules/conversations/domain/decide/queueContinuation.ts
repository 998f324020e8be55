// QueueContinuation: a gateway start's continuation for a conversation to resume, at the head of the queue, once per
// boot.
import type { AutoContinuation, ConversationEvent, QueuedMessage } from '../../../../events/conversation/conversationEvents.js';
import { waitingContinuation } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

/** A gateway start's continuation for a conversation to resume: at the head of the queue, once per boot. */
export interface QueueContinuation {
  type: 'QueueContinuation';
  messageId: string;
  continuation: AutoContinuation;
  now: string;
}

export function decideQueueContinuation(command: QueueContinuation, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent' || state.suspended) return [];
  // Once per boot, and never two waiting: a repeated or later start finds the first one still at the head.
  if (state.lastContinuationBootId === command.continuation.bootId || waitingContinuation(state)) return [];
  const message: QueuedMessage = {
    id: command.messageId,
    mode: 'queue',
    text: continuationText(command.continuation),
    media: [],
    sender: null,
    metadata: null,
    queuedAt: command.now,
    kind: 'auto_continue',
    continuation: command.continuation,
  };
  return [{ type: 'ContinuationQueued', data: { message } }];
}

/** What the agent reads as the continuation's user message: why it is running, and what it was doing. */
export function continuationText(continuation: AutoContinuation): string {
  const lines = [
    `[System note: your previous turn was interrupted by a gateway restart (${continuation.reason}); the gateway is back online. ` +
      'Continue the interrupted work from the transcript, or tell the user briefly what was done and what was cut short.]',
  ];
  if (continuation.interruptedText) lines.push(`The interrupted request was: ${continuation.interruptedText}`);
  return lines.join('\n');
}
