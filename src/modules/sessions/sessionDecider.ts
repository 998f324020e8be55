// The session decider: turns, counters, transcript, memory, slots, checkpoints and rollback, children, end, destroy.
import { ConflictError, NotFoundError } from '../../errors/ledgerError.js';
import { requireSessionUsageRoom } from './usageLimits.js';
import { type Decider, unknownEventType } from '../../events/decider.js';
import type { JsonObject, JsonValue } from '../../events/eventStore.js';
import type { RestorePoints } from '../../events/streamStateStore.js';
import {
  DEFAULT_SLOT,
  type ForkOrigin,
  type MessageInput,
  type SessionEndReason,
  type SessionStreamEvent,
  type StoredMessage,
  type TurnAbandonReason,
  type TurnStatus,
  type TurnUsage,
} from '../../events/session/sessionEvents.js';
import { appendItems, findItem, findLastItem, lastItem, listSize, mapItems, toArray } from './chunkedList.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import { type FoldedTimeline, restoredTimelineOf, restoreTimeline } from './restoredTimeline.js';
import {
  type CheckpointRecord,
  contextSlot,
  type ExistingSession,
  initialSessionState,
  installTimeline,
  memoryEntry,
  type SessionState,
  transcriptMessage,
  upsertByName,
} from './sessionState.js';
import type { SessionCounters, SessionTimeline } from '../../events/session/sessionTimeline.js';
import { evolveItemHistory } from './itemHistory.js';

export { initialSessionState, zeroCounters } from './sessionState.js';
export type { AbsentSession, ExistingSession, SessionState } from './sessionState.js';
export type { SessionCounters, SessionTimeline, TranscriptMessage } from '../../events/session/sessionTimeline.js';

export type SessionCommand =
  | {
      type: 'CreateSession';
      sessionId: string;
      sessionKey: string;
      origin: SessionSource;
      reason: string;
      now: string;
      parentSessionId?: string;
      agentName?: string;
      metadata?: JsonObject;
      forkOf?: ForkOrigin;
      startingState?: SessionTimeline;
      depth?: number;
    }
  | {
      type: 'RecordTurn';
      messages: MessageInput[];
      usage: TurnUsage;
      status: TurnStatus;
      now: string;
      autoCheckpoint?: boolean;
      maxTranscriptMessages?: number;
      maxSessionTokens?: number;
    }
  | { type: 'StartTurn'; now: string }
  /** Gives up the turn in flight if it started at or before `startedBy` (the caller's cutoff, checked again here on the stream). */
  | { type: 'AbandonTurn'; reason: TurnAbandonReason; startedBy: string; gatewayId?: string; now: string }
  | { type: 'NoteStatus'; text: string; reason: string; now: string }
  | { type: 'RewindTranscript'; turns: number; now: string }
  | { type: 'RewriteTranscript'; messages: MessageInput[]; now: string; maxTranscriptMessages?: number }
  | { type: 'EndSession'; reason: SessionEndReason; now: string }
  | { type: 'ReopenSession'; now: string }
  | { type: 'CreateCheckpoint'; label: string | null; now: string }
  /**
   * `restored` is the state at the checkpoint's revision, replayed by the caller: the decider has no history. A
   * state folded from the same history as the current one shares its unchanged chunks, which makes the change cheap to find.
   */
  | { type: 'RollBack'; checkpointId: string; restored: FoldedTimeline; now: string }
  | { type: 'SetMemoryEntry'; name: string; value: JsonValue; metadata: JsonObject; now: string }
  | { type: 'RemoveMemoryEntry'; name: string; now: string }
  | { type: 'CreateSlot'; name: string; now: string }
  | { type: 'SwitchSlot'; name: string; now: string }
  | {
      type: 'RecordChildSession';
      childSessionId: string;
      kind: 'child' | 'fork';
      agentName: string | null;
      forkOf?: { checkpointId: string | null; revision: number };
      now: string;
    }
  | { type: 'DestroySession'; reason: 'destroyed' | 'cascade'; cascadeFrom?: string; now: string };

// Rounding to micro-dollars keeps float sums from drifting differently in a replay.
const addCost = (a: number, b: number) => Math.round((a + b) * 1e6) / 1e6;

function addUsage(counters: SessionCounters, usage: TurnUsage): SessionCounters {
  const inputTokens = counters.inputTokens + usage.inputTokens;
  const outputTokens = counters.outputTokens + usage.outputTokens;
  const cacheReadTokens = counters.cacheReadTokens + usage.cacheReadTokens;
  const cacheWriteTokens = counters.cacheWriteTokens + usage.cacheWriteTokens;
  return {
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    totalTokens: inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens,
    estimatedCostUsd: addCost(counters.estimatedCostUsd, usage.costUsd),
    lastPromptTokens: usage.lastPromptTokens ?? counters.lastPromptTokens,
  };
}

/** A checkpoint's id is the revision of the event that records it: unique in its stream, whatever the timeline. */
export const checkpointIdFor = (revision: number) => `cp-${revision}`;

function withCheckpoint(state: ExistingSession, checkpoint: Omit<CheckpointRecord, 'parentCheckpointId'>): ExistingSession {
  const record: CheckpointRecord = {
    checkpointId: checkpoint.checkpointId,
    label: checkpoint.label,
    revision: checkpoint.revision,
    turnIndex: checkpoint.turnIndex,
    createdAt: checkpoint.createdAt,
    auto: checkpoint.auto,
    parentCheckpointId: state.headCheckpointId,
  };
  return { ...state, checkpoints: appendItems(state.checkpoints, [record]), headCheckpointId: record.checkpointId };
}

type SessionCreatedData = Extract<SessionStreamEvent, { type: 'SessionCreated' }>['data'];

function createdSession(data: SessionCreatedData, revision: number): ExistingSession {
  const created: ExistingSession = {
    ...initialSessionState(),
    status: 'active',
    sessionId: data.sessionId,
    sessionKey: data.sessionKey,
    origin: data.origin,
    createdAt: data.at,
    updatedAt: data.at,
    slots: [{ name: DEFAULT_SLOT, createdAt: data.at }],
    revision,
    parentSessionId: data.parentSessionId ?? null,
    agentName: data.agentName ?? null,
    metadata: data.metadata ?? {},
    forkOf: data.forkOf ?? null,
    depth: data.depth ?? (data.parentSessionId ? 1 : 0),
  };
  return data.startingState ? installTimeline(created, data.startingState) : created;
}

export function evolveSession(current: ExistingSession, event: SessionStreamEvent): ExistingSession;
export function evolveSession(current: SessionState, event: SessionStreamEvent): SessionState;
export function evolveSession(current: SessionState, event: SessionStreamEvent): SessionState {
  const revision = current.revision + 1;
  if (event.type === 'SessionCreated') return createdSession(event.data, revision);
  // Every other event follows SessionCreated in its stream (decideSession writes nothing else for an absent session).
  if (current.status === 'absent') return { ...current, revision };
  return evolveExistingSession({ ...current, revision }, event);
}

function evolveExistingSession(state: ExistingSession, event: Exclude<SessionStreamEvent, { type: 'SessionCreated' }>): ExistingSession {
  switch (event.type) {
    case 'TurnRecorded': {
      const { data } = event;
      const slot = data.slot ?? DEFAULT_SLOT;
      const recorded: ExistingSession = {
        ...state,
        turnCount: Math.max(state.turnCount, data.turnIndex),
        nextMessageIndex: state.nextMessageIndex + data.messages.length,
        counters: addUsage(state.counters, data.usage),
        transcript: appendItems(
          state.transcript,
          data.messages.map((message) => transcriptMessage(message, slot, false)),
        ),
        updatedAt: data.at,
        turnInFlight: null,
      };
      if (!data.checkpointId) return recorded;
      return withCheckpoint(recorded, {
        checkpointId: data.checkpointId,
        label: null,
        revision: state.revision,
        turnIndex: data.turnIndex,
        createdAt: data.at,
        auto: true,
      });
    }
    case 'StatusNoted': {
      const slot = event.data.slot ?? DEFAULT_SLOT;
      return {
        ...state,
        nextMessageIndex: state.nextMessageIndex + 1,
        transcript: appendItems(state.transcript, [transcriptMessage(event.data.message, slot, false)]),
        updatedAt: event.data.at,
      };
    }
    case 'TranscriptRewound': {
      const { slot } = event.data;
      return {
        ...state,
        // Indexes grow along the transcript: only its tail, from the target message on, can change.
        transcript: mapItems(
          state.transcript,
          (message) => (message.index >= event.data.fromMessageIndex && message.slot === slot && !message.deleted ? { ...message, deleted: true } : message),
          (chunk) => chunk.at(-1)!.index >= event.data.fromMessageIndex,
        ),
        updatedAt: event.data.at,
      };
    }
    case 'TranscriptRewritten': {
      const slot = event.data.slot ?? DEFAULT_SLOT;
      return {
        ...state,
        nextMessageIndex: state.nextMessageIndex + event.data.messages.length,
        transcript: appendItems(
          mapItems(state.transcript, (message) => (message.slot === slot && !message.deleted ? { ...message, deleted: true } : message)),
          event.data.messages.map((message) => transcriptMessage(message, slot, false)),
        ),
        // A rewrite is how a summary (compression) lands.
        lastSummaryTurn: state.turnCount,
        updatedAt: event.data.at,
      };
    }
    case 'SessionEnded':
      return { ...state, status: 'ended', endedAt: event.data.at, endReason: event.data.reason, updatedAt: event.data.at };
    case 'SessionReopened':
      return { ...state, status: 'active', endedAt: null, endReason: null, updatedAt: event.data.at };
    case 'TurnStarted':
      return { ...state, turnInFlight: { turnIndex: event.data.turnIndex, startedAt: event.data.at }, updatedAt: event.data.at };
    case 'TurnAbandoned': {
      const { turnIndex, startedAt, reason, at } = event.data;
      return { ...state, turnInFlight: null, lastAbandonedTurn: { turnIndex, startedAt, abandonedAt: at, reason }, updatedAt: at };
    }
    case 'CheckpointCreated':
      return withCheckpoint(state, {
        checkpointId: event.data.checkpointId,
        label: event.data.label,
        revision: state.revision,
        turnIndex: event.data.turnIndex,
        createdAt: event.data.at,
        auto: false,
      });
    case 'RolledBack':
      // Items appended after the checkpoint are no longer in the history.
      return { ...restoreTimeline(state, event.data.restored), itemsShrunkAt: state.revision, updatedAt: event.data.at };
    case 'MemoryEntrySet': {
      const { name, value, metadata, at } = event.data;
      const createdAt = state.memory.find((entry) => entry.name === name)?.createdAt ?? at;
      return { ...state, memory: upsertByName(state.memory, memoryEntry({ name, value, metadata, createdAt, updatedAt: at })), updatedAt: at };
    }
    case 'MemoryEntryRemoved':
      return { ...state, memory: state.memory.filter((entry) => entry.name !== event.data.name), updatedAt: event.data.at };
    case 'SlotCreated':
      return { ...state, slots: upsertByName(state.slots, contextSlot({ name: event.data.name, createdAt: event.data.at })), updatedAt: event.data.at };
    case 'SlotSwitched':
      return { ...state, currentSlot: event.data.name, updatedAt: event.data.at };
    case 'ChildSessionCreated':
      // The tree projection keeps the children; the parent only counts them, for MAX_CHILDREN_PER_SESSION.
      return { ...state, childrenSpawned: state.childrenSpawned + 1 };
    case 'SessionDestroyed':
      return { ...state, status: 'destroyed', destroyedAt: event.data.at, turnInFlight: null, updatedAt: event.data.at };
    case 'ItemAppended':
    case 'ItemPopped':
    case 'ItemsCleared':
      return evolveItemHistory(state, event);
    default:
      return unknownEventType(event, state);
  }
}

export function sessionNotFound(sessionId: string): NotFoundError {
  return new NotFoundError('SESSION_NOT_FOUND', `no session ${sessionId}`, { sessionId });
}

export function sessionDestroyed(sessionId: string | null): ConflictError {
  return new ConflictError('SESSION_DESTROYED', `session ${sessionId} was destroyed; its history stays readable for audit`, { sessionId });
}

export function checkpointNotFound(sessionId: string | null, checkpointId: string): NotFoundError {
  return new NotFoundError('CHECKPOINT_NOT_FOUND', `session ${sessionId} has no checkpoint ${checkpointId}`, { sessionId, checkpointId });
}

function turnInFlight(state: ExistingSession): ConflictError {
  return new ConflictError('TURN_IN_FLIGHT', `session ${state.sessionId} has turn ${state.turnInFlight?.turnIndex} in flight; record it first`, {
    sessionId: state.sessionId,
    turnIndex: state.turnInFlight?.turnIndex,
  });
}

/**
 * The transcript keeps every message it was given, soft-deleted ones too (undo, audit), so that is what the
 * limit counts: rewinds and rewrites do not make room; a rollback (which restores a shorter transcript) or a
 * new session (reset) does.
 */
function requireTranscriptRoom(state: ExistingSession, adding: number, limit: number | undefined): void {
  if (limit === undefined) return;
  const held = listSize(state.transcript);
  if (held + adding > limit) {
    throw new ConflictError('TRANSCRIPT_FULL', `session ${state.sessionId} holds ${held} messages; ${adding} more would pass the limit of ${limit}`, {
      sessionId: state.sessionId,
      held,
      adding,
      limit,
    });
  }
}

/** Whether `parent` may spawn one more child or fork: checked on the parent's state before the child is created. */
export function requireSpawnAllowed(parent: SessionState, limits: { childrenPerSession: number; treeDepth: number }): void {
  if (parent.childrenSpawned >= limits.childrenPerSession) {
    throw new ConflictError('TOO_MANY_CHILDREN', `session ${parent.sessionId} has spawned ${parent.childrenSpawned} children and forks, the limit`, {
      sessionId: parent.sessionId,
      limit: limits.childrenPerSession,
    });
  }
  if (parent.depth + 1 > limits.treeDepth) {
    throw new ConflictError(
      'TREE_TOO_DEEP',
      `a child of session ${parent.sessionId} would be ${parent.depth + 1} levels below its root; the limit is ${limits.treeDepth}`,
      {
        sessionId: parent.sessionId,
        depth: parent.depth + 1,
        limit: limits.treeDepth,
      },
    );
  }
}

/** The session a command acted on: one decideSession refused nothing to exists, so this throws only for a stream never created. */
export function existingSession(state: SessionState, sessionId: string): ExistingSession {
  if (state.status === 'absent') throw sessionNotFound(sessionId);
  return state;
}

function requireExisting(state: SessionState): asserts state is ExistingSession {
  if (state.status === 'absent') throw sessionNotFound('unknown');
}

export function requireWritable(state: SessionState): asserts state is ExistingSession {
  requireExisting(state);
  if (state.status === 'destroyed') throw sessionDestroyed(state.sessionId);
  if (state.status === 'ended') {
    throw new ConflictError('SESSION_ENDED', `session ${state.sessionId} has ended (${state.endReason}); resolve the conversation for its current session`, {
      sessionId: state.sessionId,
      endReason: state.endReason,
    });
  }
}

export function findCheckpoint(state: SessionState, checkpointId: string): CheckpointRecord {
  // From the newest: a rollback most often goes back to one of the last few.
  const checkpoint = state.status === 'destroyed' ? undefined : findLastItem(state.checkpoints, (candidate) => candidate.checkpointId === checkpointId);
  if (!checkpoint) throw checkpointNotFound(state.sessionId, checkpointId);
  return checkpoint;
}

/** The checkpoint a rollback would restore, or the reason it is refused: callers replay to it only once this passes. */
export function rollbackTarget(state: SessionState, checkpointId: string): CheckpointRecord {
  requireWritable(state);
  if (state.turnInFlight) throw turnInFlight(state);
  return findCheckpoint(state, checkpointId);
}

function store(messages: MessageInput[], firstIndex: number, turnIndex: number, at: string): StoredMessage[] {
  return messages.map((message, offset) => ({ ...message, index: firstIndex + offset, turnIndex, at }));
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

export function decideSession(command: SessionCommand, state: SessionState): SessionStreamEvent[] {
  switch (command.type) {
    case 'CreateSession': {
      if (state.status !== 'absent') return [];
      const { type: _type, now, ...data } = command;
      return [{ type: 'SessionCreated', data: { ...data, at: now } }];
    }
    case 'RecordTurn': {
      requireWritable(state);
      requireTranscriptRoom(state, command.messages.length, command.maxTranscriptMessages);
      requireSessionUsageRoom(state.sessionId, state.counters, command.usage, command.maxSessionTokens);
      const turnIndex = state.turnCount + 1;
      const revision = state.revision + 1;
      const checkpoint = command.autoCheckpoint && command.status === 'completed' ? { checkpointId: checkpointIdFor(revision) } : {};
      return [
        {
          type: 'TurnRecorded',
          data: {
            turnIndex,
            status: command.status,
            messages: store(command.messages, state.nextMessageIndex, turnIndex, command.now),
            usage: command.usage,
            at: command.now,
            slot: state.currentSlot,
            ...checkpoint,
          },
        },
      ];
    }
    case 'NoteStatus': {
      // A note is a courtesy: a session that has ended or gone simply does not get it.
      if (state.status !== 'active') return [];
      const message = store(
        [{ role: 'system', content: command.text, metadata: { status: command.reason } }],
        state.nextMessageIndex,
        state.turnCount,
        command.now,
      )[0]!;
      return [{ type: 'StatusNoted', data: { message, reason: command.reason, at: command.now, slot: state.currentSlot } }];
    }
    case 'StartTurn':
      requireWritable(state);
      if (state.turnInFlight) throw turnInFlight(state);
      return [{ type: 'TurnStarted', data: { turnIndex: state.turnCount + 1, at: command.now } }];
    case 'AbandonTurn': {
      // Nothing in flight, or a turn started after the cutoff (recorded and started again since the caller looked): nothing to do.
      const inFlight = state.turnInFlight;
      if (!inFlight || Date.parse(inFlight.startedAt) > Date.parse(command.startedBy)) return [];
      const gateway = command.gatewayId === undefined ? {} : { gatewayId: command.gatewayId };
      return [
        { type: 'TurnAbandoned', data: { turnIndex: inFlight.turnIndex, startedAt: inFlight.startedAt, reason: command.reason, ...gateway, at: command.now } },
      ];
    }
    case 'RewindTranscript': {
      requireWritable(state);
      const live = toArray(state.transcript).filter((message) => !message.deleted && message.slot === state.currentSlot);
      const userMessages = live.filter((message) => message.role === 'user');
      if (userMessages.length === 0) return [];
      // n < 1 counts as 1; more turns than exist clamp to the oldest user turn.
      const turnsUndone = Math.min(Math.max(1, Math.floor(command.turns)), userMessages.length);
      const target = userMessages[userMessages.length - turnsUndone]!;
      const rewoundCount = live.filter((message) => message.index >= target.index).length;
      return [
        {
          type: 'TranscriptRewound',
          data: { fromMessageIndex: target.index, rewoundCount, turnsUndone, at: command.now, slot: state.currentSlot },
        },
      ];
    }
    case 'RewriteTranscript': {
      requireWritable(state);
      requireTranscriptRoom(state, command.messages.length, command.maxTranscriptMessages);
      const replacedCount = toArray(state.transcript).filter((message) => !message.deleted && message.slot === state.currentSlot).length;
      return [
        {
          type: 'TranscriptRewritten',
          data: {
            messages: store(command.messages, state.nextMessageIndex, state.turnCount, command.now),
            replacedCount,
            at: command.now,
            slot: state.currentSlot,
          },
        },
      ];
    }
    case 'EndSession':
      if (state.status !== 'active') return [];
      return [{ type: 'SessionEnded', data: { reason: command.reason, at: command.now } }];
    case 'ReopenSession':
      // A destroyed session stays destroyed: only an ended one reopens.
      if (state.status !== 'ended') return [];
      return [{ type: 'SessionReopened', data: { reason: 'switch', at: command.now } }];
    case 'CreateCheckpoint':
      requireWritable(state);
      return [
        {
          type: 'CheckpointCreated',
          data: { checkpointId: checkpointIdFor(state.revision + 1), label: command.label, turnIndex: state.turnCount, at: command.now },
        },
      ];
    case 'RollBack': {
      const checkpoint = rollbackTarget(state, command.checkpointId);
      if (command.restored.headCheckpointId !== checkpoint.checkpointId) {
        throw new Error(`the state handed to RollBack is not checkpoint ${checkpoint.checkpointId}'s (its head is ${command.restored.headCheckpointId})`);
      }
      return [
        {
          type: 'RolledBack',
          data: {
            checkpointId: checkpoint.checkpointId,
            targetRevision: checkpoint.revision,
            fromRevision: state.revision,
            fromTurnIndex: state.turnCount,
            restored: restoredTimelineOf(state, command.restored),
            at: command.now,
          },
        },
      ];
    }
    case 'SetMemoryEntry':
      requireWritable(state);
      return [{ type: 'MemoryEntrySet', data: { name: command.name, value: command.value, metadata: command.metadata, at: command.now } }];
    case 'RemoveMemoryEntry':
      requireWritable(state);
      if (!state.memory.some((entry) => entry.name === command.name)) {
        throw new NotFoundError('MEMORY_ENTRY_NOT_FOUND', `session ${state.sessionId} has no memory entry ${command.name}`, { name: command.name });
      }
      return [{ type: 'MemoryEntryRemoved', data: { name: command.name, at: command.now } }];
    case 'CreateSlot':
      requireWritable(state);
      if (state.slots.some((slot) => slot.name === command.name)) {
        throw new ConflictError('SLOT_EXISTS', `session ${state.sessionId} already has a context slot ${command.name}`, { name: command.name });
      }
      return [{ type: 'SlotCreated', data: { name: command.name, at: command.now } }];
    case 'SwitchSlot':
      requireWritable(state);
      if (!state.slots.some((slot) => slot.name === command.name)) {
        throw new NotFoundError('SLOT_NOT_FOUND', `session ${state.sessionId} has no context slot ${command.name}`, { name: command.name });
      }
      if (state.currentSlot === command.name) return [];
      return [{ type: 'SlotSwitched', data: { name: command.name, previous: state.currentSlot, at: command.now } }];
    case 'RecordChildSession': {
      // Recorded even on a parent destroyed meanwhile: the child exists either way, as an orphan.
      requireExisting(state);
      const { type: _type, now, ...data } = command;
      return [{ type: 'ChildSessionCreated', data: { ...data, at: now } }];
    }
    case 'DestroySession': {
      requireExisting(state);
      if (state.status === 'destroyed') return [];
      const cascade = command.cascadeFrom === undefined ? {} : { cascadeFrom: command.cascadeFrom };
      return [{ type: 'SessionDestroyed', data: { reason: command.reason, ...cascade, at: command.now } }];
    }
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const sessionDecider: Decider<SessionState, SessionCommand, SessionStreamEvent> & { snapshotVersion: string } & RestorePoints<SessionState> = {
  initialState: initialSessionState,
  evolve: evolveSession,
  decide: decideSession,
  // Change it whenever SessionState changes shape: snapshots of another version are ignored and replaced.
  snapshotVersion: 'session-state/6',
  // A checkpoint's state is the one its event left: kept in memory, a rollback to the newest checkpoint replays nothing.
  isRestorePoint: (state) => lastItem(state.checkpoints)?.revision === state.revision,
};
