// Session events onto session_records, and a turn's counters onto the entry that points at the session.
import type { EntityManager } from 'typeorm';
import type { SessionEvent } from '../../events/session/sessionEvents.js';
import { evolveSession, initialSessionState, type SessionState } from '../../modules/sessions/sessionDecider.js';
import { ConversationEntryEntity } from './conversationEntryRow.js';
import { SessionRecordEntity, type SessionRecordRow } from './sessionRecordRow.js';
import { countersOf } from './sessionCounterColumns.js';

export async function projectSessionEvent(sessionId: string, event: SessionEvent, manager: EntityManager): Promise<void> {
  const records = manager.getRepository(SessionRecordEntity);
  const existing = await records.findOneBy({ sessionId });
  // Only SessionCreated starts a record: the decider writes nothing else for a session without one.
  if (!existing && event.type !== 'SessionCreated') return;
  const next = evolveSession(existing ? sessionStateOf(existing) : initialSessionState(), event);
  const record: SessionRecordRow = { ...recordRowOf(sessionId, next), messageCount: liveMessageCount(existing?.messageCount ?? 0, event) };
  await records.upsert(record, ['sessionId']);
  if (event.type === 'TurnRecorded') {
    await manager.getRepository(ConversationEntryEntity).update({ sessionId }, { ...countersOf(record), updatedAt: new Date(event.data.at) });
  }
}

/** The read model keeps no transcript, so the live count follows the counts the events carry. */
function liveMessageCount(current: number, event: SessionEvent): number {
  switch (event.type) {
    case 'SessionCreated':
      return 0;
    case 'TurnRecorded':
      return current + event.data.messages.length;
    case 'TranscriptRewound':
      return current - event.data.rewoundCount;
    case 'TranscriptRewritten':
      return event.data.messages.length;
    case 'SessionEnded':
    case 'SessionReopened':
      return current;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

function sessionStateOf(row: SessionRecordRow): SessionState {
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
  };
}

/** Every state reached from SessionCreated has a key, an origin and its timestamps. */
function recordRowOf(sessionId: string, state: SessionState): Omit<SessionRecordRow, 'messageCount'> {
  return {
    sessionId,
    sessionKey: state.sessionKey!,
    status: state.status === 'ended' ? 'ended' : 'active',
    createdAt: new Date(state.createdAt!),
    updatedAt: new Date(state.updatedAt!),
    endedAt: state.endedAt === null ? null : new Date(state.endedAt),
    endReason: state.endReason,
    origin: state.origin!,
    ...state.counters,
    turnCount: state.turnCount,
  };
}
