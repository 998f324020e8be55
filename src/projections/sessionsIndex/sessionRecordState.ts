// A session record and the state it was folded from: the index folds each event onto the state its row stands for.
import { type ExistingSession, initialSessionState } from '../../modules/sessions/domain/sessionDecider.js';
import { countersOf } from './sessionCounterColumns.js';
import type { SessionRecordRow } from './sessionRecordRow.js';

/** The state a record was folded from, as far as the record says: enough for every field it keeps. */
export function sessionStateOf(row: SessionRecordRow): ExistingSession {
  const { turnCount, ...counters } = countersOf(row);
  return {
    ...initialSessionState(),
    status: row.status,
    sessionId: row.sessionId,
    sessionKey: row.sessionKey,
    origin: row.origin,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    endedAt: row.endedAt === null ? null : row.endedAt.toISOString(),
    endReason: row.endReason,
    turnCount,
    counters,
    turnInFlight:
      row.turnInFlightIndex === null || row.turnInFlightSince === null
        ? null
        : { turnIndex: row.turnInFlightIndex, startedAt: row.turnInFlightSince.toISOString() },
    lastAbandonedTurn: row.lastAbandonedTurn,
  };
}

export function recordRowOf(tenant: string, sessionId: string, state: ExistingSession): Omit<SessionRecordRow, 'messageCount'> {
  return {
    tenant,
    sessionId,
    sessionKey: state.sessionKey,
    status: state.status,
    createdAt: new Date(state.createdAt),
    updatedAt: new Date(state.updatedAt),
    endedAt: state.endedAt === null ? null : new Date(state.endedAt),
    endReason: state.endReason,
    origin: state.origin,
    ...state.counters,
    turnCount: state.turnCount,
    turnInFlightIndex: state.turnInFlight?.turnIndex ?? null,
    turnInFlightSince: state.turnInFlight ? new Date(state.turnInFlight.startedAt) : null,
    lastAbandonedTurn: state.lastAbandonedTurn,
  };
}
