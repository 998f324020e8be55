// ImportRoutingEntry as a specification: the importer lays a Hermes routing entry over the conversation it replayed.
import { describe, it } from 'vitest';
import type { ImportedRoutingEntry } from '../../src/events/conversation/conversationEvents.js';
import { at, conversation, openOnS1 } from '../support/conversationHistories.js';

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
