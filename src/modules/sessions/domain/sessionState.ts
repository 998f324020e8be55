// A session's folded state; the part of it a checkpoint captures (its timeline) is typed with the events that store it.
import type { JsonObject } from '../../../events/eventStore.js';
import type { ContextSlot, MemoryEntry, SessionCounters, SessionTimeline, TranscriptMessage } from '../../../events/session/sessionTimeline.js';
import { zeroCounters } from '../../../events/session/sessionCounters.js';
import { type AbandonedTurn, DEFAULT_SLOT, type ForkOrigin, type SessionEndReason, type StoredMessage } from '../../../events/session/sessionEvents.js';
import { type ChunkedList, emptyList, listFrom, toArray } from './chunkedList.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

export interface CheckpointRecord {
  checkpointId: string;
  label: string | null;
  /** Revision of the event that recorded it: the state at this revision is the checkpoint's state. */
  revision: number;
  turnIndex: number;
  createdAt: string;
  auto: boolean;
  /** The head of the timeline when it was taken: following these links from the head gives the current timeline. */
  parentCheckpointId: string | null;
  /** Expired by retention (CheckpointsExpired): not listed, and a rollback or fork to it is refused. */
  contentExpired: boolean;
}

/** What every session state holds, absent or not: the timeline (its two long lists as chunked lists) and the counts. */
interface SessionStateFields extends Omit<SessionTimeline, 'transcript' | 'itemCount'> {
  transcript: ChunkedList<TranscriptMessage>;
  /** Items in the item history; the items themselves stay in the log, read backwards from its end. */
  itemCount: number;
  /**
   * Revision of the last event that removed items (ItemPopped, ItemsCleared, RolledBack), -1 for none: an item
   * appended after it is still in the history, without a read.
   */
  itemsShrunkAt: number;
  /** Revision of the last event folded in (-1 before any): checkpoint ids and revisions come from it. */
  revision: number;
  parentSessionId: string | null;
  agentName: string | null;
  metadata: JsonObject;
  forkOf: ForkOrigin | null;
  turnInFlight: { turnIndex: number; startedAt: string } | null;
  /**
   * The fencing token of the turn in flight: the revision of its TurnStarted, so a later start (after the turn was
   * given up) always holds a greater one. A write carrying another is refused (LEASE_LOST). Null with no turn in flight.
   */
  turnLease: number | null;
  /** The newest started turn that was given up unrecorded (TurnAbandoned), kept so the session shows why it was unpinned. */
  lastAbandonedTurn: AbandonedTurn | null;
  /** In the order they were taken, whatever timeline they are on. */
  checkpoints: ChunkedList<CheckpointRecord>;
  /** Levels below its root: 0 for a conversation's session, its parent's plus one for a child or fork (MAX_TREE_DEPTH). */
  depth: number;
  /** Children and forks spawned from it over its life, destroyed ones included (MAX_CHILDREN_PER_SESSION). */
  childrenSpawned: number;
}

/** A stream with no SessionCreated (yet): nothing names it. */
export interface AbsentSession extends SessionStateFields {
  status: 'absent';
  sessionId: null;
  sessionKey: null;
  origin: null;
  createdAt: null;
  updatedAt: null;
  endedAt: null;
  endReason: null;
  destroyedAt: null;
}

/** A session SessionCreated named: what it set stays set (an ended or destroyed session keeps its key and origin). */
export interface ExistingSession extends SessionStateFields {
  status: 'active' | 'ended' | 'destroyed';
  sessionId: string;
  sessionKey: string;
  origin: SessionSource;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  endReason: SessionEndReason | null;
  destroyedAt: string | null;
}

/**
 * The fold of a session stream, a union by status: a check of `status` narrows it, and the compiler refuses the
 * fields an absent session does not have. Every variant holds the same keys in the same order (see
 * initialSessionState), so a snapshot stores the same JSON whatever the variant.
 */
export type SessionState = AbsentSession | ExistingSession;

export const initialSessionState = (): SessionState => ({
  status: 'absent',
  sessionId: null,
  sessionKey: null,
  origin: null,
  createdAt: null,
  updatedAt: null,
  endedAt: null,
  endReason: null,
  turnCount: 0,
  nextMessageIndex: 0,
  counters: zeroCounters(),
  transcript: emptyList(),
  memory: [],
  slots: [],
  currentSlot: DEFAULT_SLOT,
  lastSummaryTurn: null,
  headCheckpointId: null,
  itemCount: 0,
  itemsShrunkAt: -1,
  revision: -1,
  parentSessionId: null,
  agentName: null,
  metadata: {},
  forkOf: null,
  turnInFlight: null,
  turnLease: null,
  lastAbandonedTurn: null,
  checkpoints: emptyList(),
  destroyedAt: null,
  depth: 0,
  childrenSpawned: 0,
});

// The constructors below fix each object's key order, so a state restored from an event serialises byte for
// byte like the state folded turn by turn (user data inside is key-sorted by the store's fold already).

export function countersOf(counters: SessionCounters): SessionCounters {
  return {
    inputTokens: counters.inputTokens,
    outputTokens: counters.outputTokens,
    cacheReadTokens: counters.cacheReadTokens,
    cacheWriteTokens: counters.cacheWriteTokens,
    totalTokens: counters.totalTokens,
    estimatedCostUsd: counters.estimatedCostUsd,
    lastPromptTokens: counters.lastPromptTokens,
  };
}

export function transcriptMessage(message: StoredMessage, slot: string, deleted: boolean): TranscriptMessage {
  const { slot: _slot, deleted: _deleted, ...stored } = message as Partial<TranscriptMessage> & StoredMessage;
  return { ...stored, slot, deleted };
}

export function memoryEntry(entry: MemoryEntry): MemoryEntry {
  return { name: entry.name, value: entry.value, metadata: entry.metadata, createdAt: entry.createdAt, updatedAt: entry.updatedAt };
}

export function contextSlot(slot: ContextSlot): ContextSlot {
  return { name: slot.name, createdAt: slot.createdAt };
}

/** The checkpointable part of a state: what RolledBack and a fork's SessionCreated carry. */
export function timelineOf(state: SessionState): SessionTimeline {
  return {
    turnCount: state.turnCount,
    nextMessageIndex: state.nextMessageIndex,
    counters: state.counters,
    transcript: toArray(state.transcript),
    memory: state.memory,
    slots: state.slots,
    currentSlot: state.currentSlot,
    lastSummaryTurn: state.lastSummaryTurn,
    headCheckpointId: state.headCheckpointId,
    itemCount: state.itemCount,
  };
}

export function installTimeline<State extends SessionState>(state: State, timeline: SessionTimeline): State {
  return {
    ...state,
    turnCount: timeline.turnCount,
    nextMessageIndex: timeline.nextMessageIndex,
    counters: countersOf(timeline.counters),
    transcript: listFrom(timeline.transcript.map((message) => transcriptMessage(message, message.slot, message.deleted))),
    memory: timeline.memory.map(memoryEntry),
    slots: timeline.slots.map(contextSlot),
    currentSlot: timeline.currentSlot,
    lastSummaryTurn: timeline.lastSummaryTurn,
    headCheckpointId: timeline.headCheckpointId,
    itemCount: timeline.itemCount ?? 0,
  };
}

/** Inserts or replaces by name, keeping the list sorted by name. */
export function upsertByName<Item extends { name: string }>(items: readonly Item[], item: Item): Item[] {
  const rest = items.filter((existing) => existing.name !== item.name);
  const at = rest.findIndex((existing) => existing.name > item.name);
  return at < 0 ? [...rest, item] : [...rest.slice(0, at), item, ...rest.slice(at)];
}

export interface CheckpointListing extends Omit<CheckpointRecord, 'parentCheckpointId' | 'contentExpired'> {
  onCurrentTimeline: boolean;
}

/** Newest first, each marked by whether the current state descends from it; those retention expired are left out. */
export function listCheckpoints(state: Pick<SessionState, 'checkpoints' | 'headCheckpointId'>): CheckpointListing[] {
  const checkpoints = toArray(state.checkpoints);
  const byId = new Map(checkpoints.map((checkpoint) => [checkpoint.checkpointId, checkpoint]));
  const onTimeline = new Set<string>();
  for (let id = state.headCheckpointId; id !== null && !onTimeline.has(id); id = byId.get(id)?.parentCheckpointId ?? null) onTimeline.add(id);
  return checkpoints
    .filter((checkpoint) => !checkpoint.contentExpired)
    .map(({ parentCheckpointId: _parent, contentExpired: _expired, ...checkpoint }) => ({
      ...checkpoint,
      onCurrentTimeline: onTimeline.has(checkpoint.checkpointId),
    }))
    .reverse();
}
