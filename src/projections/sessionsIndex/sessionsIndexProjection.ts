// The sessions index: conversation entries (sessions.json) and session records, from both stream categories.
import type { EntityManager } from 'typeorm';
import { type ConversationEvent, type ConversationEventType, conversationStreamName } from '../../events/conversation/conversationEvents.js';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type SessionStreamEvent, type SessionStreamEventType, sessionStreamName } from '../../events/session/sessionEvents.js';
import { streamScope } from '../../events/streamScope.js';
import { type Projection, projectEach } from '../projection.js';
import { ConversationEntryEntity } from './conversationEntryRow.js';
import { projectConversationEvent } from './projectConversationEvent.js';
import { projectSessionEvent } from './projectSessionEvent.js';
import { SessionRecordEntity } from './sessionRecordRow.js';
import { type SessionIdRef, type SessionKeyRef, SessionsIndexRows } from './sessionsIndexRows.js';

// Records, not arrays, so a new event type fails the type check until someone decides whether the index needs it.
// The queue and restart-count events change nothing an entry holds: false skips them.
const conversationEventTypes: Record<ConversationEventType, boolean> = {
  ConversationOpened: true,
  SessionBound: true,
  ConversationTouched: true,
  Suspended: true,
  ResumeMarked: true,
  ResumeCleared: true,
  ConversationPruned: true,
  RoutingEntryImported: true,
  // The reset sweep finds conversations with a policy of their own by it.
  ResetPolicySet: true,
  // The entry says expiry_finalized until the next binding; the session's record is ended by its own SessionEnded.
  SessionExpired: true,
  BackgroundActivityReported: false,
  RestartInterrupted: false,
  MessageQueued: false,
  QueuedMessageReplaced: false,
  MessageDequeued: false,
  QueueCleared: false,
  ContinuationQueued: false,
};
// Every session event but a child's birth moves the record (its updatedAt at least), as evolveSession folds it.
const sessionEventTypes: Record<SessionStreamEventType, boolean> = {
  SessionCreated: true,
  TurnRecorded: true,
  LastPromptTokensSet: true,
  TranscriptRewound: true,
  TranscriptRewritten: true,
  SessionEnded: true,
  SessionReopened: true,
  StatusNoted: true,
  TurnStarted: true,
  TurnAbandoned: true,
  CheckpointCreated: true,
  // Retention's expiry of old checkpoints is not activity: the record (its updatedAt) stays as it was.
  CheckpointsExpired: false,
  RolledBack: true,
  MemoryEntrySet: true,
  MemoryEntryRemoved: true,
  SlotCreated: true,
  SlotSwitched: true,
  ChildSessionCreated: false,
  SessionDestroyed: true,
  // Items are activity: the record's updatedAt follows them.
  ItemAppended: true,
  ItemPopped: true,
  ItemsCleared: true,
};

const conversationPrefix = conversationStreamName('');
const sessionPrefix = sessionStreamName('');

type IndexedEvent =
  | { kind: 'conversation'; tenant: string; sessionKey: string; event: ConversationEvent }
  | { kind: 'session'; tenant: string; sessionId: string; event: SessionStreamEvent };

/** What an event means to the index, or null. Later events name neither key nor id: the stream name does. */
function indexedEventOf(event: RecordedEvent): IndexedEvent | null {
  const { tenant, name } = streamScope(event.streamName);
  if (name.startsWith(conversationPrefix) && conversationEventTypes[event.type as ConversationEventType] === true) {
    const conversationEvent = { type: event.type, data: event.data } as unknown as ConversationEvent;
    return { kind: 'conversation', tenant, sessionKey: name.slice(conversationPrefix.length), event: conversationEvent };
  }
  if (name.startsWith(sessionPrefix) && sessionEventTypes[event.type as SessionStreamEventType] === true) {
    const sessionEvent = { type: event.type, data: event.data } as unknown as SessionStreamEvent;
    return { kind: 'session', tenant, sessionId: name.slice(sessionPrefix.length), event: sessionEvent };
  }
  return null;
}

export const sessionsIndexProjection: Projection = {
  name: 'sessions-index',
  tables: ['conversation_entries', 'session_records'],
  entities: [ConversationEntryEntity, SessionRecordEntity],
  appliesTo: (event) => indexedEventOf(event) !== null,
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const indexed = new Map<RecordedEvent, IndexedEvent>();
    const keys: SessionKeyRef[] = [];
    const sessions: SessionIdRef[] = [];
    for (const event of events) {
      const item = indexedEventOf(event);
      if (!item) continue;
      indexed.set(event, item);
      if (item.kind === 'session') sessions.push({ tenant: item.tenant, sessionId: item.sessionId });
      else {
        keys.push({ tenant: item.tenant, sessionKey: item.sessionKey });
        // A binding copies the bound session's counters from its record.
        if (item.event.type === 'SessionBound') sessions.push({ tenant: item.tenant, sessionId: item.event.data.sessionId });
      }
    }
    if (indexed.size === 0) return;
    const rows = new SessionsIndexRows();
    await rows.load(manager, keys, sessions);
    await projectEach('sessions-index', [...indexed.keys()], (event) => {
      const item = indexed.get(event)!;
      if (item.kind === 'conversation') projectConversationEvent(item.tenant, item.sessionKey, item.event, rows);
      else projectSessionEvent(item.tenant, item.sessionId, item.event, rows);
    });
    await rows.flush(manager);
  },
};
