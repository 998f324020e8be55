// RewriteTranscript: replaces the current slot's live messages (how a summary, Hermes' compression, lands); the
// replaced ones stay, soft-deleted, and count against the transcript limit.
import type { MessageInput, SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { toArray } from '../chunkedList.js';
import { requireTranscriptRoom, requireWritable, storedMessages } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface RewriteTranscript {
  type: 'RewriteTranscript';
  messages: MessageInput[];
  now: string;
  maxTranscriptMessages?: number;
}

export function decideRewriteTranscript(command: RewriteTranscript, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  requireTranscriptRoom(state, command.messages.length, command.maxTranscriptMessages);
  const replacedCount = toArray(state.transcript).filter((message) => !message.deleted && message.slot === state.currentSlot).length;
  return [
    {
      type: 'TranscriptRewritten',
      data: {
        messages: storedMessages(command.messages, state.nextMessageIndex, state.turnCount, command.now),
        replacedCount,
        at: command.now,
        slot: state.currentSlot,
      },
    },
  ];
}
