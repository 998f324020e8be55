// Session events onto the batch's session records, and the counters they move onto the entry that points at the session.
import { unknownEventType } from '../../events/decider.js';
import type { SessionStreamEvent } from '../../events/session/sessionEvents.js';
import { evolveSession, initialSessionState, type TranscriptMessage } from '../../modules/sessions/domain/sessionDecider.js';
import { counterColumnsOf } from './sessionCounterColumns.js';
import type { SessionsIndexRows } from './sessionsIndexRows.js';

export function projectSessionEvent(tenant: string, sessionId: string, event: SessionStreamEvent, rows: SessionsIndexRows): void {
  const session = rows.session(tenant, sessionId);
  const state = evolveSession(session?.state ?? initialSessionState(), withoutTranscript(event));
  // Only SessionCreated starts a record: the decider writes nothing else for a session without one.
  if (state.status === 'absent') return;
  rows.setSession(tenant, sessionId, { state, messageCount: liveMessageCount(session?.messageCount ?? 0, event) });
  // The entry pointing at the session shows its counters: a turn, or a prompt size set without one (Hermes'
  // update_session, which touches the entry), moves them and its activity time; a rollback restores the checkpoint's
  // counters, but a rollback is not activity.
  if (event.type !== 'TurnRecorded' && event.type !== 'LastPromptTokensSet' && event.type !== 'RolledBack') return;
  const moved = { ...counterColumnsOf(state), ...(event.type === 'RolledBack' ? {} : { updatedAt: new Date(event.data.at) }) };
  for (const entry of rows.entriesOf(tenant, sessionId)) rows.setEntry({ ...entry, ...moved });
}

/**
 * The index keeps no transcript, so turns and rollbacks are folded without their messages (the live count is taken
 * from the event first): building transcript messages was a third of a rebuild's time. Nothing the index keeps
 * depends on them.
 */
export function withoutTranscript(event: SessionStreamEvent): SessionStreamEvent {
  if (event.type === 'TurnRecorded' && event.data.messages.length > 0) return { ...event, data: { ...event.data, messages: [] } };
  if (event.type === 'RolledBack' && event.data.restored.transcript.following.length > 0) {
    const { restored } = event.data;
    return { ...event, data: { ...event.data, restored: { ...restored, transcript: { ...restored.transcript, kept: 0, following: [] } } } };
  }
  return event;
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
      return event.data.restored.transcript.liveCount;
    case 'LastPromptTokensSet':
    case 'SessionEnded':
    case 'SessionReopened':
    case 'TurnStarted':
    case 'TurnAbandoned':
    case 'CheckpointCreated':
    case 'CheckpointsExpired':
    case 'MemoryEntrySet':
    case 'MemoryEntryRemoved':
    case 'SlotCreated':
    case 'SlotSwitched':
    case 'ChildSessionCreated':
    case 'SessionDestroyed':
    case 'ItemAppended':
    case 'ItemPopped':
    case 'ItemsCleared':
      return current;
    default:
      return unknownEventType(event, current);
  }
}

const live = (transcript: readonly TranscriptMessage[]) => transcript.filter((message) => !message.deleted).length;
