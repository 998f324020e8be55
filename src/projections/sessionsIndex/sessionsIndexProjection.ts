// The sessions index: conversation entries (sessions.json) and session records, from both stream categories.
import type { EntityManager } from 'typeorm';
import { type ConversationEvent, type ConversationEventType, conversationStreamName } from '../../events/conversation/conversationEvents.js';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type SessionStreamEvent, type SessionStreamEventType, sessionStreamName } from '../../events/session/sessionEvents.js';
import { streamScope } from '../../events/streamScope.js';
import type { Projection } from '../projection.js';
import { ConversationEntryEntity } from './conversationEntryRow.js';
import { projectConversationEvent } from './projectConversationEvent.js';
import { projectSessionEvent } from './projectSessionEvent.js';
import { SessionRecordEntity } from './sessionRecordRow.js';

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
  RestartInterrupted: false,
  MessageQueued: false,
  QueuedMessageReplaced: false,
  MessageDequeued: false,
  QueueCleared: false,
};
// Every session event but a child's birth moves the record (its updatedAt at least), as evolveSession folds it.
const sessionEventTypes: Record<SessionStreamEventType, boolean> = {
  SessionCreated: true,
  TurnRecorded: true,
  TranscriptRewound: true,
  TranscriptRewritten: true,
  SessionEnded: true,
  SessionReopened: true,
  StatusNoted: true,
  TurnStarted: true,
  CheckpointCreated: true,
  RolledBack: true,
  MemoryEntrySet: true,
  MemoryEntryRemoved: true,
  SlotCreated: true,
  SlotSwitched: true,
  ChildSessionCreated: false,
  SessionDestroyed: true,
};

const conversationPrefix = conversationStreamName('');
const sessionPrefix = sessionStreamName('');

export const sessionsIndexProjection: Projection = {
  name: 'sessions-index',
  tables: ['conversation_entries', 'session_records'],
  entities: [ConversationEntryEntity, SessionRecordEntity],
  async apply(event: RecordedEvent, manager: EntityManager) {
    // Later events name neither key nor id: the stream name does.
    const { tenant, name } = streamScope(event.streamName);
    if (name.startsWith(conversationPrefix) && conversationEventTypes[event.type as ConversationEventType] === true) {
      const conversationEvent = { type: event.type, data: event.data } as unknown as ConversationEvent;
      await projectConversationEvent(tenant, name.slice(conversationPrefix.length), conversationEvent, manager);
    } else if (name.startsWith(sessionPrefix) && sessionEventTypes[event.type as SessionStreamEventType] === true) {
      const sessionEvent = { type: event.type, data: event.data } as unknown as SessionStreamEvent;
      await projectSessionEvent(tenant, name.slice(sessionPrefix.length), sessionEvent, manager);
    }
  },
};
