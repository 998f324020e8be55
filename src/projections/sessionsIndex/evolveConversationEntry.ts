// The sessions index folds a conversation's events onto its routing entry: the fields the entry keeps and nothing
// else (its counters are the bound session's, moved by projectSessionEvent). The conversation's write-side fold
// (evolveConversation) must agree on every one of them; test/unit/conversationEntryFold.unit.spec.ts checks that
// over random histories.
import type { ConversationEvent } from '../../events/conversation/conversationEvents.js';
import { unknownEventType } from '../../events/decider.js';
import { automaticBindReasons, withoutSessionScopedFields } from '../../events/conversation/routingEntryRules.js';
import type { ConversationEntryRow } from './conversationEntryRow.js';
import type { SessionCounterColumns } from './sessionCounterColumns.js';

/** An entry less its tenant, which the stream's name gives, and its counters, which its session's events move. */
export type ConversationEntry = Omit<ConversationEntryRow, 'tenant' | keyof SessionCounterColumns>;

/** null: no entry (none opened yet, or pruned; the decider writes nothing else for a key without one). */
export function evolveConversationEntry(entry: ConversationEntry | null, event: ConversationEvent): ConversationEntry | null {
  if (event.type === 'ConversationOpened') return openedEntry(event.data);
  if (entry === null) return null;
  switch (event.type) {
    case 'SessionBound': {
      const { reason, at } = event.data;
      const autoReset = automaticBindReasons.includes(reason);
      // A reset or a switch keeps the chat the conversation came from; any other binding takes the message's.
      const origin = reason === 'reset' || reason === 'switch' ? entry.origin : event.data.origin;
      return {
        ...entry,
        sessionId: event.data.sessionId,
        createdAt: new Date(at),
        updatedAt: new Date(at),
        origin,
        platform: origin.platform,
        chatType: origin.chatType,
        displayName: event.data.displayName ?? entry.displayName,
        gatewayId: event.data.gatewayId,
        suspended: false,
        resumePending: false,
        resumeReason: null,
        lastResumeMarkedAt: null,
        wasAutoReset: autoReset,
        autoResetReason: autoReset ? reason : null,
        resetHadActivity: reason === 'new' || reason === 'switch' ? false : event.data.previousHadActivity,
        isFreshReset: reason === 'reset',
        carried: withoutSessionScopedFields(entry.carried),
        expired: null,
      };
    }
    case 'ConversationTouched':
      return { ...entry, gatewayId: event.data.gatewayId, updatedAt: new Date(event.data.at), isFreshReset: false };
    case 'Suspended':
      return { ...entry, suspended: true, updatedAt: new Date(event.data.at) };
    case 'ResumeMarked':
      return {
        ...entry,
        resumePending: true,
        resumeReason: event.data.reason,
        lastResumeMarkedAt: new Date(event.data.at),
        updatedAt: new Date(event.data.at),
      };
    case 'ResumeCleared':
      return { ...entry, resumePending: false, resumeReason: null };
    case 'RoutingEntryImported': {
      const { at: _at, createdAt, updatedAt, lastResumeMarkedAt, ...flags } = event.data;
      return {
        ...entry,
        ...flags,
        createdAt: new Date(createdAt),
        updatedAt: new Date(updatedAt),
        lastResumeMarkedAt: lastResumeMarkedAt === null ? null : new Date(lastResumeMarkedAt),
      };
    }
    case 'SessionExpired': {
      const { sessionId, reason, hadActivity, at } = event.data;
      return { ...entry, expired: { sessionId, reason, hadActivity, at } };
    }
    case 'ResetPolicySet':
      return { ...entry, resetPolicy: event.data.policy };
    case 'ConversationPruned':
      // The routing entry goes; the session records stay, as Hermes' prune keeps the transcripts.
      return null;
    // The queue, the restart counter and background processes are the conversation's, not its entry's.
    case 'RestartInterrupted':
    case 'MessageQueued':
    case 'QueuedMessageReplaced':
    case 'MessageDequeued':
    case 'QueueCleared':
    case 'ContinuationQueued':
    case 'BackgroundActivityReported':
      return entry;
    default:
      return unknownEventType(event, entry);
  }
}

type ConversationOpenedData = Extract<ConversationEvent, { type: 'ConversationOpened' }>['data'];

function openedEntry(data: ConversationOpenedData): ConversationEntry {
  return {
    sessionKey: data.sessionKey,
    sessionId: null,
    createdAt: null,
    updatedAt: new Date(data.at),
    origin: data.origin,
    displayName: data.displayName,
    platform: data.origin.platform,
    chatType: data.origin.chatType,
    gatewayId: data.gatewayId,
    suspended: false,
    resumePending: false,
    resumeReason: null,
    lastResumeMarkedAt: null,
    wasAutoReset: false,
    autoResetReason: null,
    resetHadActivity: false,
    isFreshReset: false,
    carried: null,
    resetPolicy: null,
    expired: null,
  };
}
