// A conversation's folded state (its routing entry), a union by status: absent, open without a session yet, bound.
import type { CarriedEntryFields, QueuedMessage, ResumeReason, SessionBindReason } from '../../../events/conversation/conversationEvents.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import type { ResetPolicy } from '../../../events/conversation/resetPolicy.js';
import type { ExpiredSession } from '../../../events/conversation/routingEntryRules.js';
import type { SessionIsolationFlags } from '../../sessions/domain/sessionIsolation.js';

/** What every conversation state holds, absent or not: flags, counters and the queue. */
interface ConversationStateFields {
  /** Every session this conversation has pointed at, oldest first: the ones /resume may switch to. */
  sessionIds: string[];
  suspended: boolean;
  resumePending: boolean;
  resumeReason: ResumeReason | null;
  lastResumeMarkedAt: string | null;
  wasAutoReset: boolean;
  autoResetReason: string | null;
  resetHadActivity: boolean;
  isFreshReset: boolean;
  /** Unclean gateway starts this conversation was active across since its last completed turn. */
  interruptedStarts: number;
  /** The boot that counted last, so a retried start call does not count twice. */
  lastInterruptedBootId: string | null;
  queue: { slot: QueuedMessage | null; overflow: QueuedMessage[] };
  /** Fields of an imported entry the ledger does not model, kept for the sessions.json export. */
  carried: CarriedEntryFields | null;
  /** The isolation settings the conversation was opened with; null for conversations opened before they were kept. */
  isolation: SessionIsolationFlags | null;
  /** The gateway boot that last queued a continuation here: one per boot, however often the start is repeated. */
  lastContinuationBootId: string | null;
  /** The last message the gateway took from the queue: the interrupted turn's text when a restart cut that turn short. */
  lastDequeued: { messageId: string; text: string | null; at: string } | null;
  /** Its own reset policy (a resolve's options.resetPolicy); null: the server's. */
  resetPolicy: ResetPolicy | null;
  /** The gateway's oldest live background process for it, as last reported on resolve; null: none. */
  backgroundProcessSince: string | null;
  /** The reset sweep ended the current session: the next resolve binds a new one for this reason. */
  expired: ExpiredSession | null;
}

/** Never opened, or pruned (which keeps the key and the sessions it pointed at). */
export interface AbsentConversation extends ConversationStateFields {
  status: 'absent';
  sessionKey: string | null;
  sessionId: null;
  createdAt: null;
  bindReason: null;
  updatedAt: null;
  origin: null;
  displayName: null;
  gatewayId: null;
}

/** What ConversationOpened sets for good. */
interface OpenConversationFields extends ConversationStateFields {
  status: 'open';
  sessionKey: string;
  updatedAt: string;
  origin: SessionSource;
  displayName: string | null;
  gatewayId: string;
  /** Why the current session was bound; null before SessionBound, and in the sessions index's rebuilt state (its row does not keep it). */
  bindReason: SessionBindReason | null;
}

/**
 * Opened, its SessionBound not folded yet: the decider appends the two together, so only a fold that stops between
 * them (a batch of the read model, a state at a revision) sees it.
 */
export interface UnboundConversation extends OpenConversationFields {
  sessionId: null;
  createdAt: string | null;
}

export interface BoundConversation extends OpenConversationFields {
  sessionId: string;
  /** When the current session was bound (Hermes' created_at of the entry). */
  createdAt: string;
}

export type OpenConversation = UnboundConversation | BoundConversation;

/**
 * The fold of a conversation stream: a check of `status` (then of `sessionId`) narrows it, and the compiler refuses
 * the fields a variant does not have. Every variant holds the same keys in the same order (initialConversationState).
 */
export type ConversationState = AbsentConversation | OpenConversation;

export const initialConversationState = (): ConversationState => ({
  status: 'absent',
  sessionKey: null,
  sessionId: null,
  sessionIds: [],
  createdAt: null,
  bindReason: null,
  updatedAt: null,
  origin: null,
  displayName: null,
  gatewayId: null,
  suspended: false,
  resumePending: false,
  resumeReason: null,
  lastResumeMarkedAt: null,
  wasAutoReset: false,
  autoResetReason: null,
  resetHadActivity: false,
  isFreshReset: false,
  interruptedStarts: 0,
  lastInterruptedBootId: null,
  queue: { slot: null, overflow: [] },
  carried: null,
  isolation: null,
  lastContinuationBootId: null,
  lastDequeued: null,
  resetPolicy: null,
  backgroundProcessSince: null,
  expired: null,
});
