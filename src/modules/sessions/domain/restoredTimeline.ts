// A rollback's restored timeline written as a change to the timeline rolled back from: computed by the decider, installed by the fold.
import type { JsonValue } from '../../../events/eventStore.js';
import { appendItems, type ChunkedList, itemCounter, itemsFrom, leadingItems, sharedLeadingCount } from './chunkedList.js';
import type { RestoredTimeline, SessionTimeline, TranscriptMessage } from '../../../events/session/sessionTimeline.js';
import { contextSlot, countersOf, memoryEntry, type SessionState, transcriptMessage } from './sessionState.js';

/** A timeline as a fold holds it: the transcript as a chunked list. A SessionState is one. */
export type FoldedTimeline = Pick<SessionState, keyof SessionTimeline>;

const liveMessages = itemCounter<TranscriptMessage>((message) => !message.deleted);

/** `restored` (the state at the checkpoint) as a change to `current` (the state rolled back from). */
export function restoredTimelineOf(current: FoldedTimeline, restored: FoldedTimeline): RestoredTimeline {
  // Rewinds and rewrites after the checkpoint soft-delete messages in place: the kept prefix ends at the first one that differs.
  const kept = sharedLeadingCount(current.transcript, restored.transcript, sameMessage);
  return {
    turnCount: restored.turnCount,
    nextMessageIndex: restored.nextMessageIndex,
    counters: restored.counters,
    transcript: { kept, following: itemsFrom(restored.transcript, kept), liveCount: liveMessages(restored.transcript) },
    memory: restored.memory,
    slots: restored.slots,
    currentSlot: restored.currentSlot,
    lastSummaryTurn: restored.lastSummaryTurn,
    headCheckpointId: restored.headCheckpointId,
    itemCount: restored.itemCount,
  };
}

/**
 * The fold of RolledBack. A v1 event (the whole timeline) arrives upcast to `kept: 0` with every message, which
 * installs the same state the v1 fold did. A state without its transcript (the sessions index folds one) keeps
 * what it has: its transcript is not read.
 */
export function restoreTimeline<State extends SessionState>(state: State, restored: RestoredTimeline): State {
  const following = restored.transcript.following.map((message) => transcriptMessage(message, message.slot, message.deleted));
  const transcript: ChunkedList<TranscriptMessage> = appendItems(leadingItems(state.transcript, restored.transcript.kept), following);
  return {
    ...state,
    turnCount: restored.turnCount,
    nextMessageIndex: restored.nextMessageIndex,
    counters: countersOf(restored.counters),
    transcript,
    memory: restored.memory.map(memoryEntry),
    slots: restored.slots.map(contextSlot),
    currentSlot: restored.currentSlot,
    lastSummaryTurn: restored.lastSummaryTurn,
    headCheckpointId: restored.headCheckpointId,
    // Rollbacks recorded before item histories restore none.
    itemCount: restored.itemCount ?? 0,
  };
}

/**
 * Equal as the fold would serialise them, key order included, so a kept message is byte for byte the one the
 * checkpoint's state holds. Field by field, the ones a rewind or a rewrite changes first; the keys' order is a
 * function of which keys are present (every message is built by transcriptMessage from canonical data), checked last.
 */
function sameMessage(a: TranscriptMessage, b: TranscriptMessage): boolean {
  return (
    a.index === b.index &&
    a.deleted === b.deleted &&
    a.slot === b.slot &&
    a.turnIndex === b.turnIndex &&
    a.at === b.at &&
    a.role === b.role &&
    a.name === b.name &&
    a.toolCallId === b.toolCallId &&
    sameJson(a.content, b.content) &&
    sameJson(a.toolCalls, b.toolCalls) &&
    sameJson(a.metadata, b.metadata) &&
    sameKeys(a, b)
  );
}

function sameKeys(a: object, b: object): boolean {
  const left = Object.keys(a);
  const right = Object.keys(b);
  return left.length === right.length && left.every((key, at) => key === right[at]);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as JsonValue[];
    return a.length === other.length && a.every((item, at) => sameJson(item, other[at]));
  }
  return sameKeys(a, b) && Object.keys(a).every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
