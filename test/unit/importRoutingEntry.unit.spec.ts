// ImportRoutingEntry as a specification: the importer lays a Hermes routing entry over the conversation it replayed.
import { describe, it } from 'vitest';
import type { ConversationEvent, ImportedRoutingEntry } from '../../src/events/conversation/conversationEvents.js';
import { conversationDecider } from '../../src/modules/conversations/domain/conversationDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { specification } from '../support/deciderSpecification.js';

const conversation = specification(conversationDecider);

const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345', userId: 'u1' });
const at = (seconds: number) => new Date(Date.parse('2026-06-16T09:00:00.000Z') + seconds * 1000).toISOString();

const openOnS1: ConversationEvent[] = [
  { type: 'ConversationOpened', data: { sessionKey: 'agent:main:telegram:dm:12345', origin: source, displayName: null, gatewayId: 'gw-1', at: at(0) } },
  {
    type: 'SessionBound',
    data: { sessionId: 's1', reason: 'new', previousSessionId: null, previousHadActivity: false, origin: source, gatewayId: 'gw-1', at: at(0) },
  },
];
const entry: Omit<ImportedRoutingEntry, 'at'> = {
  displayName: 'Alice',
  createdAt: at(0),
  updatedAt: at(30),
  suspended: false,
  resumePending: true,
  resumeReason: 'restart_timeout',
  lastResumeMarkedAt: at(30),
  wasAutoReset: false,
  autoResetReason: null,
  resetHadActivity: false,
  isFreshReset: false,
  carried: { model_override: 'gpt-5' },
};
const importEntry = { type: 'ImportRoutingEntry' as const, entry, now: at(60) };

describe('ImportRoutingEntry', () => {
  it('records the entry as the imported gateway last wrote it', () =>
    conversation
      .given(openOnS1)
      .when(importEntry)
      .then([{ type: 'RoutingEntryImported', data: { ...entry, at: at(60) } }]));

  it('refuses an absent conversation: CONVERSATION_NOT_FOUND (404)', () =>
    conversation.given([]).when(importEntry).thenThrows({ code: 'CONVERSATION_NOT_FOUND', status: 404 }));
});
