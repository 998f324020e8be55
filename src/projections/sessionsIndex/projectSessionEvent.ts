// Session events onto session_records, and the counters they move onto the entry that points at the session.
import type { EntityManager } from 'typeorm';
import type { SessionStreamEvent } from '../../events/session/sessionEvents.js';
import { evolveSession, initialSessionState, type SessionState, type TranscriptMessage } from '../../modules/sessions/sessionDecider.js';
import { ConversationEntryEntity } from './conversationEntryRow.js';
import { SessionRecordEntity, type SessionRecordRow } from './sessionRecordRow.js';
import { countersOf } from './sessionCounterColumns.js';

export async function projectSessionEvent(tenant: string, sessionId: string, event: SessionStreamEvent, manager: EntityManager): Promise<void> {
  const records = manager.getRepository(SessionRecordEntity);
  const existing = await records.findOneBy({ tenant, sessionId });
  // Only SessionCreated starts a record: the decider writes nothing else for a session without one.
  if (!existing && event.type !== 'SessionCreated') return;
  const next = evolveSession(existing ? sessionStateOf(existing) : initialSessionState(), event);
  const record: SessionRecordRow = { ...recordRowOf(tenant, sessionId, next), messageCount: liveMessageCount(existing?.messageCount ?? 0, event) };
  await records.upsert(record, ['tenant', 'sessionId']);
  const entries = manager.getRepository(ConversationEntryEntity);
  if (event.type === 'TurnRecorded') await entries.update({ tenant, sessionId }, { ...countersOf(record), updatedAt: new Date(event.data.at) });
  // A rollback restores the checkpoint's counters: the entry shows them, but a rollback is not a turn.
  if (event.type === 'RolledBack') await entries.update({ tenant, sessionId }, countersOf(record));
}

/** The read model keeps no transcript, so the live count (all slots) follows the counts the events carry. */
function liveMessageCount(current: number, event: SessionStreamEvent): number {
  switch (event.type) {
    case 'SessionCreated':
      return live(event.data.startingState?.transcript ?? []);
    case 'TurnRecorded':
      return current + event.data.messages.length;
    case 'StatusNoted':
      return current + 1;
    case 'TranscriptRewound':
      return current - event.data.rewoundCount;
    case 'TranscriptRewritten':
      // Only the rewritten slot's live messages are replaced.
      return current - event.data.replacedCount + event.data.messages.length;
    case 'RolledBack':
      return live(event.data.restored.transcript);
    case 'SessionEnded':
    case 'SessionReopened':
    case 'TurnStarted':
    case 'CheckpointCreated':
    case 'MemoryEntrySet':
    case 'MemoryEntryRemoved':
    case 'SlotCreated':
    case 'SlotSwitched':
    case 'ChildSessionCreated':
    case 'SessionDestroyed':
      return current;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

const live = (transcript: readonly TranscriptMessage[]) => transcript.filter((message) => !message.deleted).length;

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
function recordRowOf(tenant: string, sessionId: string, state: SessionState): Omit<SessionRecordRow, 'messageCount'> {
  return {
    tenant,
    sessionId,
    sessionKey: state.sessionKey!,
    status: state.status === 'absent' ? 'active' : state.status,
    createdAt: new Date(state.createdAt!),
    updatedAt: new Date(state.updatedAt!),
    endedAt: state.endedAt === null ? null : new Date(state.endedAt),
    endReason: state.endReason,
    origin: state.origin!,
    ...state.counters,
    turnCount: state.turnCount,
  };
}
