// The sessions index: conversation entries (sessions.json) and session records, from both stream categories.
import type { EntityManager } from 'typeorm';
import { type ConversationEvent, type ConversationEventType, conversationStreamName } from '../../events/conversation/conversationEvents.js';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type SessionEvent, type SessionEventType, sessionStreamName } from '../../events/session/sessionEvents.js';
import type { Projection } from '../projection.js';
import { ConversationEntryEntity } from './conversationEntryRow.js';
import { projectConversationEvent } from './projectConversationEvent.js';
import { projectSessionEvent } from './projectSessionEvent.js';
import { SessionRecordEntity } from './sessionRecordRow.js';

// Records, not arrays, so adding an event type without listing it here fails the type check.
const conversationEventTypes: Record<ConversationEventType, true> = {
  ConversationOpened: true,
  SessionBound: true,
  ConversationTouched: true,
  Suspended: true,
  ResumeMarked: true,
  ResumeCleared: true,
  ConversationPruned: true,
};
const sessionEventTypes: Record<SessionEventType, true> = {
  SessionCreated: true,
  TurnRecorded: true,
  TranscriptRewound: true,
  TranscriptRewritten: true,
  SessionEnded: true,
  SessionReopened: true,
};

const conversationPrefix = conversationStreamName('');
const sessionPrefix = sessionStreamName('');

export const sessionsIndexProjection: Projection = {
  name: 'sessions-index',
  tables: ['conversation_entries', 'session_records'],
  entities: [ConversationEntryEntity, SessionRecordEntity],
  async apply(event: RecordedEvent, manager: EntityManager) {
    // Later events name neither key nor id: the stream name does.
    if (event.streamName.startsWith(conversationPrefix) && Object.hasOwn(conversationEventTypes, event.type)) {
      const conversationEvent = { type: event.type, data: event.data } as unknown as ConversationEvent;
      await projectConversationEvent(event.streamName.slice(conversationPrefix.length), conversationEvent, manager);
    } else if (event.streamName.startsWith(sessionPrefix) && Object.hasOwn(sessionEventTypes, event.type)) {
      const sessionEvent = { type: event.type, data: event.data } as unknown as SessionEvent;
      await projectSessionEvent(event.streamName.slice(sessionPrefix.length), sessionEvent, manager);
    }
  },
};
