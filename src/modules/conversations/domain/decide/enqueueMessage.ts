// EnqueueMessage: a message for a busy agent waits in the slot or the overflow, up to the cap; a follow-up may join
// the one already waiting (QUEUE_FOLLOW_UPS).
import { LedgerError } from '../../../../errors/ledgerError.js';
import type { ConversationEvent, QueuedMessage } from '../../../../events/conversation/conversationEvents.js';
import type { QueueFollowUps } from '../../../../config/queueFollowUps.js';
import { conversationNotFound, queueDepth } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface EnqueueMessage {
  type: 'EnqueueMessage';
  message: QueuedMessage;
  cap: number;
  followUps: QueueFollowUps;
  now: string;
}

export function decideEnqueueMessage(command: EnqueueMessage, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  return enqueue(state, command.message, command.cap, command.followUps);
}

/** The follow-up a later one may join: the slot's, or the overflow's last, never an explicitly /queue'd message. */
function waitingFollowUp(state: ConversationState): { message: QueuedMessage; placement: 'slot' | 'overflow' } | null {
  const { slot, overflow } = state.queue;
  if (slot?.mode === 'interrupt') return { message: slot, placement: 'slot' };
  const tail = overflow.at(-1);
  return tail?.mode === 'interrupt' ? { message: tail, placement: 'overflow' } : null;
}

/** `fifo` joins only where media are involved (Hermes merges a photo burst, an album, a caption into its pending event). */
function joinsWaiting(waiting: QueuedMessage, incoming: QueuedMessage, followUps: QueueFollowUps): boolean {
  return followUps !== 'fifo' || waiting.media.length > 0 || incoming.media.length > 0;
}

/** The later message absorbs the waiting one: media added; text appended after a newline, or replacing it (`replace`). */
function coalesce(waiting: QueuedMessage, incoming: QueuedMessage, followUps: QueueFollowUps): QueuedMessage {
  const appended = followUps !== 'replace' && waiting.text && incoming.text ? `${waiting.text}\n${incoming.text}` : null;
  return { ...incoming, text: appended ?? incoming.text ?? waiting.text, media: [...waiting.media, ...incoming.media] };
}

function isWaiting(state: ConversationState, messageId: string): boolean {
  return state.queue.slot?.id === messageId || state.queue.overflow.some((message) => message.id === messageId);
}

function enqueue(state: ConversationState, message: QueuedMessage, cap: number, followUps: QueueFollowUps): ConversationEvent[] {
  const { slot, overflow } = state.queue;
  // A gateway sending the same message again (a retry without an Idempotency-Key) queues it once.
  if (isWaiting(state, message.id)) return [];
  if (message.mode === 'interrupt') {
    const waiting = waitingFollowUp(state);
    if (waiting && joinsWaiting(waiting.message, message, followUps)) {
      const joined = coalesce(waiting.message, message, followUps);
      return [{ type: 'QueuedMessageReplaced', data: { replacedId: waiting.message.id, message: joined, placement: waiting.placement } }];
    }
  }
  // An empty slot takes the message only when nothing waits in the overflow: FIFO order holds.
  if (!slot && overflow.length === 0) return [{ type: 'MessageQueued', data: { message, placement: 'slot' } }];
  if (queueDepth(state) >= cap) {
    throw new LedgerError('QUEUE_FULL', `the queue of this conversation holds ${cap} messages; wait for the agent to take some`, 429, { cap });
  }
  return [{ type: 'MessageQueued', data: { message, placement: 'overflow' } }];
}
