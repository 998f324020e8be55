// RewindTranscript: soft-deletes the current slot's last `turns` user turns and what followed them (Hermes' /undo
// and /retry); n < 1 counts as 1, more turns than exist clamp to the oldest user turn.
import type { JsonValue } from '../../../../events/eventStore.js';
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { findItem, toArray } from '../chunkedList.js';
import { requireWritable } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface RewindTranscript {
  type: 'RewindTranscript';
  turns: number;
  now: string;
}

export function decideRewindTranscript(command: RewindTranscript, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  const live = toArray(state.transcript).filter((message) => !message.deleted && message.slot === state.currentSlot);
  const userMessages = live.filter((message) => message.role === 'user');
  if (userMessages.length === 0) return [];
  const turnsUndone = Math.min(Math.max(1, Math.floor(command.turns)), userMessages.length);
  const target = userMessages[userMessages.length - turnsUndone]!;
  const rewoundCount = live.filter((message) => message.index >= target.index).length;
  return [{ type: 'TranscriptRewound', data: { fromMessageIndex: target.index, rewoundCount, turnsUndone, at: command.now, slot: state.currentSlot } }];
}

/** The text of the message a rewind went back to (what /retry sends again): it stays in the transcript, soft-deleted. */
export function rewoundTargetText(state: SessionState, fromMessageIndex: number): string | null {
  const target = findItem(state.transcript, (message) => message.index === fromMessageIndex);
  return target ? textOf(target.content) : null;
}

function textOf(content: JsonValue): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.flatMap((part) => (part && typeof part === 'object' && !Array.isArray(part) && typeof part.text === 'string' ? [part.text] : []));
    return parts.length > 0 ? parts.join('\n') : null;
  }
  return null;
}
