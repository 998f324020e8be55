// The part of a session a checkpoint captures and a rollback restores, as a fork's SessionCreated and RolledBack store it.
import type { JsonObject, JsonValue } from '../eventStore.js';
import type { StoredMessage } from './sessionMessages.js';

export interface SessionCounters {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
  estimatedCostUsd: number;
  lastPromptTokens: number;
}

export interface TranscriptMessage extends StoredMessage {
  /** The context slot the message was recorded in. */
  slot: string;
  deleted: boolean;
}

/** agcore's SessionMemoryEntry: a value with its metadata and when it was first and last set. */
export interface MemoryEntry {
  name: string;
  value: JsonValue;
  metadata: JsonObject;
  createdAt: string;
  updatedAt: string;
}

/** agcore's ContextSlot: a named context. Its messages are the transcript's messages recorded in it. */
export interface ContextSlot {
  name: string;
  createdAt: string;
}

/** Everything a checkpoint captures. Rolling back installs exactly this; nothing else of the state moves. */
export interface SessionTimeline {
  turnCount: number;
  nextMessageIndex: number;
  counters: SessionCounters;
  transcript: TranscriptMessage[];
  /** Sorted by name, so two folds of the same history list it identically. */
  memory: MemoryEntry[];
  /** Sorted by name. */
  slots: ContextSlot[];
  currentSlot: string;
  lastSummaryTurn: number | null;
  /** The newest checkpoint this state descends from; the current timeline is it and its ancestors. */
  headCheckpointId: string | null;
  /** Items in the session's item history. Stored timelines from before item histories lack it: read as 0. */
  itemCount?: number;
}

/**
 * The restored transcript as the messages it keeps of the one rolled back from plus the messages after them, so
 * that a rollback to a recent checkpoint writes what changed since, not the whole session.
 */
export interface TranscriptChange {
  /** How many leading messages of the transcript rolled back from stay exactly as they are. */
  kept: number;
  /** The restored transcript's messages after those. */
  following: TranscriptMessage[];
  /** The restored transcript's messages that are not soft-deleted, all slots: the sessions index keeps no transcript to count. */
  liveCount: number;
}

/** What RolledBack (v2) carries: the checkpoint's timeline, its transcript as a change. */
export interface RestoredTimeline extends Omit<SessionTimeline, 'transcript'> {
  transcript: TranscriptChange;
}
