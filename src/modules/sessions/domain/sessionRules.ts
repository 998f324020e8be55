// The rules several session commands share: which states a command may act on, the limits a change must fit, and
// the errors that say which rule refused it.
import { ConflictError, NotFoundError } from '../../../errors/ledgerError.js';
import type { MessageInput, StoredMessage } from '../../../events/session/sessionEvents.js';
import { findLastItem, listSize } from './chunkedList.js';
import type { CheckpointRecord, ExistingSession, SessionState } from './sessionState.js';

export function sessionNotFound(sessionId: string): NotFoundError {
  return new NotFoundError('SESSION_NOT_FOUND', `no session ${sessionId}`, { sessionId });
}

export function sessionDestroyed(sessionId: string | null): ConflictError {
  return new ConflictError('SESSION_DESTROYED', `session ${sessionId} was destroyed; its history stays readable for audit`, { sessionId });
}

export function checkpointNotFound(sessionId: string | null, checkpointId: string): NotFoundError {
  return new NotFoundError('CHECKPOINT_NOT_FOUND', `session ${sessionId} has no checkpoint ${checkpointId}`, { sessionId, checkpointId });
}

export function turnInFlight(state: ExistingSession): ConflictError {
  return new ConflictError('TURN_IN_FLIGHT', `session ${state.sessionId} has turn ${state.turnInFlight?.turnIndex} in flight; record it first`, {
    sessionId: state.sessionId,
    turnIndex: state.turnInFlight?.turnIndex,
  });
}

/**
 * A write made under a turn lease stands only while that lease's turn is the one in flight: a turn given up (the
 * watchdog, a gateway restart) and perhaps started again since has moved on, and a late write must not land in it.
 */
export function requireLease(state: ExistingSession, lease: number): void {
  if (state.turnLease === lease) return;
  const now = state.turnLease === null ? 'no turn is in flight' : `turn ${state.turnInFlight?.turnIndex} holds lease ${state.turnLease}`;
  throw new ConflictError('LEASE_LOST', `lease ${lease} of session ${state.sessionId} was superseded (${now}); nothing was written`, {
    sessionId: state.sessionId,
    lease,
    currentLease: state.turnLease,
  });
}

/** A checkpoint's id is the revision of the event that records it: unique in its stream, whatever the timeline. */
export const checkpointIdFor = (revision: number) => `cp-${revision}`;

/**
 * The transcript keeps every message it was given, soft-deleted ones too (undo, audit), so that is what the
 * limit counts: rewinds and rewrites do not make room; a rollback (which restores a shorter transcript) or a
 * new session (reset) does.
 */
export function requireTranscriptRoom(state: ExistingSession, adding: number, limit: number | undefined): void {
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

export function requireExisting(state: SessionState): asserts state is ExistingSession {
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
  // Its events may still be in the log, but retention gave it up: restoring or forking it would bring back what expired.
  if (checkpoint.contentExpired) {
    throw new ConflictError('CHECKPOINT_CONTENT_EXPIRED', `checkpoint ${checkpointId} of session ${state.sessionId} has expired under the retention policy`, {
      sessionId: state.sessionId,
      checkpointId,
    });
  }
  return checkpoint;
}

/** The checkpoint a rollback would restore, or the reason it is refused: callers replay to it only once this passes. */
export function rollbackTarget(state: SessionState, checkpointId: string): CheckpointRecord {
  requireWritable(state);
  if (state.turnInFlight) throw turnInFlight(state);
  return findCheckpoint(state, checkpointId);
}

/** Messages as the transcript stores them: numbered on from `firstIndex`, all of turn `turnIndex`. */
export function storedMessages(messages: MessageInput[], firstIndex: number, turnIndex: number, at: string): StoredMessage[] {
  return messages.map((message, offset) => ({ ...message, index: firstIndex + offset, turnIndex, at }));
}
