// The routing entry as the API shows it: the conversation's flags plus its current session's counters.
import type { SessionCounters, SessionState } from '../sessions/domain/sessionDecider.js';
import { zeroCounters } from '../../events/session/sessionCounters.js';
import type { BoundConversation } from './domain/conversationDecider.js';
import type { ResetPolicy } from '../../events/conversation/resetPolicy.js';

export interface ConversationEntry extends SessionCounters {
  sessionKey: string;
  sessionId: string;
  createdAt: string;
  updatedAt: string;
  origin: BoundConversation['origin'];
  displayName: string | null;
  platform: string | null;
  chatType: string | null;
  gatewayId: string | null;
  suspended: boolean;
  resumePending: boolean;
  resumeReason: string | null;
  lastResumeMarkedAt: string | null;
  wasAutoReset: boolean;
  autoResetReason: string | null;
  resetHadActivity: boolean;
  isFreshReset: boolean;
  expiryFinalized: boolean;
  costStatus: 'estimated' | 'unknown';
  turnCount: number;
  sessionIds: string[];
  /** The conversation's own reset policy; null: the server's applies. */
  resetPolicy: ResetPolicy | null;
}

export function conversationEntry(conversation: BoundConversation, session: SessionState | undefined): ConversationEntry {
  const counters = session?.counters ?? zeroCounters();
  const updatedAt = [conversation.updatedAt, session?.updatedAt]
    .filter((value): value is string => Boolean(value))
    .sort()
    .at(-1)!;
  return {
    sessionKey: conversation.sessionKey,
    sessionId: conversation.sessionId,
    createdAt: conversation.createdAt,
    updatedAt,
    origin: conversation.origin,
    displayName: conversation.displayName,
    platform: conversation.origin.platform,
    chatType: conversation.origin.chatType,
    gatewayId: conversation.gatewayId,
    suspended: conversation.suspended,
    resumePending: conversation.resumePending,
    resumeReason: conversation.resumeReason,
    lastResumeMarkedAt: conversation.lastResumeMarkedAt,
    wasAutoReset: conversation.wasAutoReset,
    autoResetReason: conversation.autoResetReason,
    resetHadActivity: conversation.resetHadActivity,
    isFreshReset: conversation.isFreshReset,
    // Hermes' expiry watcher marks an entry it finalized; here the reset sweep's SessionExpired does.
    expiryFinalized: conversation.expired !== null,
    ...counters,
    costStatus: counters.estimatedCostUsd > 0 ? 'estimated' : 'unknown',
    turnCount: session?.turnCount ?? 0,
    sessionIds: conversation.sessionIds,
    resetPolicy: conversation.resetPolicy,
  };
}
