// The session decider: the state a session's events fold to (`evolve`), and `decide`, which hands each command to its
// own rule under decide/ (turns, transcript, memory, slots, checkpoints and rollback, children, end, destroy).
import { type Decider, unknownEventType } from '../../../events/decider.js';
import type { RestorePoints } from '../../../events/streamStateStore.js';
import { addUsage } from '../../../events/session/sessionCounters.js';
import { DEFAULT_SLOT, type SessionStreamEvent } from '../../../events/session/sessionEvents.js';
import { appendItems, lastItem, mapItems } from './chunkedList.js';
import { restoreTimeline } from './restoredTimeline.js';
import { evolveItemHistory } from './itemHistory.js';
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
import { type AbandonTurn, decideAbandonTurn } from './decide/abandonTurn.js';
import { type CreateSlot, decideCreateSlot, decideSwitchSlot, type SwitchSlot } from './decide/contextSlots.js';
import { type CreateCheckpoint, decideCreateCheckpoint } from './decide/createCheckpoint.js';
import { decideExpireCheckpoints, type ExpireCheckpoints } from './decide/expireCheckpoints.js';
import { type CreateSession, decideCreateSession } from './decide/createSession.js';
import { decideDestroySession, type DestroySession } from './decide/destroySession.js';
import { decideEndSession, decideReopenSession, type EndSession, type ReopenSession } from './decide/endSession.js';
import { decideRemoveMemoryEntry, decideSetMemoryEntry, type RemoveMemoryEntry, type SetMemoryEntry } from './decide/memoryEntries.js';
import { decideNoteStatus, type NoteStatus } from './decide/noteStatus.js';
import { decideRecordChildSession, type RecordChildSession } from './decide/recordChildSession.js';
import { decideRecordTurn, type RecordTurn } from './decide/recordTurn.js';
import { decideRewindTranscript, type RewindTranscript } from './decide/rewindTranscript.js';
import { decideRewriteTranscript, type RewriteTranscript } from './decide/rewriteTranscript.js';
import { decideRollBack, type RollBack } from './decide/rollBack.js';
import { decideSetLastPromptTokens, type SetLastPromptTokens } from './decide/setLastPromptTokens.js';
import { decideStartTurn, type StartTurn } from './decide/startTurn.js';

export { initialSessionState } from './sessionState.js';
export type { AbsentSession, ExistingSession, SessionState } from './sessionState.js';
export type { SessionCounters, SessionTimeline, TranscriptMessage } from '../../../events/session/sessionTimeline.js';
export {
  checkpointIdFor,
  checkpointNotFound,
  existingSession,
  findCheckpoint,
  requireSpawnAllowed,
  requireWritable,
  rollbackTarget,
  sessionDestroyed,
  sessionNotFound,
} from './sessionRules.js';
export { rewoundTargetText } from './decide/rewindTranscript.js';

function withCheckpoint(state: ExistingSession, checkpoint: Omit<CheckpointRecord, 'parentCheckpointId' | 'contentExpired'>): ExistingSession {
  const record: CheckpointRecord = {
    checkpointId: checkpoint.checkpointId,
    label: checkpoint.label,
    revision: checkpoint.revision,
    turnIndex: checkpoint.turnIndex,
    createdAt: checkpoint.createdAt,
    auto: checkpoint.auto,
    parentCheckpointId: state.headCheckpointId,
    contentExpired: false,
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
        turnLease: null,
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
    case 'LastPromptTokensSet':
      return { ...state, counters: { ...state.counters, lastPromptTokens: event.data.lastPromptTokens }, updatedAt: event.data.at };
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
      return { ...state, turnInFlight: { turnIndex: event.data.turnIndex, startedAt: event.data.at }, turnLease: state.revision, updatedAt: event.data.at };
    case 'TurnAbandoned': {
      const { turnIndex, startedAt, reason, at } = event.data;
      return { ...state, turnInFlight: null, turnLease: null, lastAbandonedTurn: { turnIndex, startedAt, abandonedAt: at, reason }, updatedAt: at };
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
    case 'CheckpointsExpired': {
      const expired = new Set(event.data.checkpointIds);
      // Not activity: updatedAt stays, so retention never keeps a session from going idle.
      return {
        ...state,
        checkpoints: mapItems(state.checkpoints, (checkpoint) => (expired.has(checkpoint.checkpointId) ? { ...checkpoint, contentExpired: true } : checkpoint)),
      };
    }
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
      return { ...state, status: 'destroyed', destroyedAt: event.data.at, turnInFlight: null, turnLease: null, updatedAt: event.data.at };
    case 'ItemAppended':
    case 'ItemPopped':
    case 'ItemsCleared':
      return evolveItemHistory(state, event);
    default:
      return unknownEventType(event, state);
  }
}

export type SessionCommand =
  | CreateSession
  | RecordTurn
  | SetLastPromptTokens
  | StartTurn
  | AbandonTurn
  | NoteStatus
  | RewindTranscript
  | RewriteTranscript
  | EndSession
  | ReopenSession
  | CreateCheckpoint
  | ExpireCheckpoints
  | RollBack
  | SetMemoryEntry
  | RemoveMemoryEntry
  | CreateSlot
  | SwitchSlot
  | RecordChildSession
  | DestroySession;

/** Which rule decides a command: each is a function of the command and the state alone, in its own file under decide/. */
export function decideSession(command: SessionCommand, state: SessionState): SessionStreamEvent[] {
  switch (command.type) {
    case 'CreateSession':
      return decideCreateSession(command, state);
    case 'RecordTurn':
      return decideRecordTurn(command, state);
    case 'SetLastPromptTokens':
      return decideSetLastPromptTokens(command, state);
    case 'StartTurn':
      return decideStartTurn(command, state);
    case 'AbandonTurn':
      return decideAbandonTurn(command, state);
    case 'NoteStatus':
      return decideNoteStatus(command, state);
    case 'RewindTranscript':
      return decideRewindTranscript(command, state);
    case 'RewriteTranscript':
      return decideRewriteTranscript(command, state);
    case 'EndSession':
      return decideEndSession(command, state);
    case 'ReopenSession':
      return decideReopenSession(command, state);
    case 'CreateCheckpoint':
      return decideCreateCheckpoint(command, state);
    case 'ExpireCheckpoints':
      return decideExpireCheckpoints(command, state);
    case 'RollBack':
      return decideRollBack(command, state);
    case 'SetMemoryEntry':
      return decideSetMemoryEntry(command, state);
    case 'RemoveMemoryEntry':
      return decideRemoveMemoryEntry(command, state);
    case 'CreateSlot':
      return decideCreateSlot(command, state);
    case 'SwitchSlot':
      return decideSwitchSlot(command, state);
    case 'RecordChildSession':
      return decideRecordChildSession(command, state);
    case 'DestroySession':
      return decideDestroySession(command, state);
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
  snapshotVersion: 'session-state/8',
  // A checkpoint's state is the one its event left: kept in memory, a rollback to the newest checkpoint replays nothing.
  isRestorePoint: (state) => lastItem(state.checkpoints)?.revision === state.revision,
};
