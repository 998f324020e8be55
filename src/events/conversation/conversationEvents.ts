// Events of a `conversation-<session key>` stream: which session a key points at, and its flags.
import { scopedStreamName } from '../streamScope.js';
import type { SessionSource } from './sessionSource.js';
import type { JsonObject, JsonValue } from '../eventStore.js';
import type { AutoResetReason, ResetPolicy } from './resetPolicy.js';

/** `idle` and `daily`: the conversation's reset policy expired its session (Hermes' auto_reset_reason). */
export type SessionBindReason = 'new' | 'reset' | 'suspended' | 'switch' | 'forced' | 'resume_expired' | AutoResetReason;
export type ResumeReason = 'restart_timeout' | 'shutdown_timeout' | 'restart_interrupted';
export const resumeReasons: readonly ResumeReason[] = ['restart_timeout', 'shutdown_timeout', 'restart_interrupted'];

export type QueueMode = 'interrupt' | 'queue';

/** Why a synthetic continuation was queued: the resume mark it answers, the gateway boot, and the interrupted turn's text where known. */
export interface AutoContinuation {
  reason: ResumeReason;
  bootId: string;
  interruptedText: string | null;
}

/** A message waiting for the agent: what the gateway sent, kept verbatim. */
export interface QueuedMessage {
  id: string;
  mode: QueueMode;
  text: string | null;
  media: JsonValue[];
  sender: JsonObject | null;
  metadata: JsonObject | null;
  queuedAt: string;
  /** Only on a message the service wrote itself: `auto_continue`, a gateway start's continuation (ContinuationQueued). */
  kind?: 'auto_continue';
  continuation?: AutoContinuation;
}

/** Whether a resolve kept group members, and thread participants, in sessions of their own. */
export interface ConversationIsolation {
  groupSessionsPerUser: boolean;
  threadSessionsPerUser: boolean;
}

export type ConversationEvent =
  | {
      type: 'ConversationOpened';
      data: {
        sessionKey: string;
        origin: SessionSource;
        displayName: string | null;
        gatewayId: string;
        at: string;
        /**
         * The group/thread isolation the conversation was resolved with (a resolve may override the server's
         * settings): what decides whether its prompt says "multi-user". Conversations opened before it was kept lack it.
         */
        isolation?: ConversationIsolation;
      };
    }
  | {
      type: 'SessionBound';
      data: {
        sessionId: string;
        reason: SessionBindReason;
        previousSessionId: string | null;
        /** Whether the session replaced had any turn (Hermes' reset_had_activity). */
        previousHadActivity: boolean;
        origin: SessionSource;
        gatewayId: string;
        at: string;
        /** A reset that renamed the conversation (Hermes' reset_session display_name). Absent before it existed, and when the name was kept. */
        displayName?: string;
      };
    }
  /** `freshResetConsumed`: this resolve is the first after a /reset, and the one that answered `isFreshReset: true`. Absent before it existed. */
  | { type: 'ConversationTouched'; data: { gatewayId: string; at: string; freshResetConsumed?: true } }
  | { type: 'Suspended'; data: { reason: string; at: string } }
  | { type: 'ResumeMarked'; data: { reason: ResumeReason; at: string } }
  | { type: 'ResumeCleared'; data: { reason: 'turn_completed' | 'manual' | 'drained'; at: string } }
  /** An unclean gateway start found this conversation recently active (the stuck-loop counter). */
  | { type: 'RestartInterrupted'; data: { bootId: string; count: number; at: string } }
  /** `slot`: into the one pending slot; `overflow`: to the FIFO tail. */
  | { type: 'MessageQueued'; data: { message: QueuedMessage; placement: 'slot' | 'overflow' } }
  /** A follow-up joined the waiting one (a media burst; every follow-up under QUEUE_FOLLOW_UPS merge or replace): the waiting interrupt message (in the slot or at the overflow tail) becomes `message`. */
  | { type: 'QueuedMessageReplaced'; data: { replacedId: string; message: QueuedMessage; placement: 'slot' | 'overflow' } }
  | { type: 'MessageDequeued'; data: { messageId: string; from: 'slot' | 'overflow'; at: string } }
  | { type: 'QueueCleared'; data: { scope: 'slot' | 'all'; reason: string; discardedIds: string[]; at: string } }
  | { type: 'ConversationPruned'; data: { idleSince: string; at: string } }
  /** A gateway start put this synthetic message (kind auto_continue) at the head of the queue: it is taken before anything else. */
  | { type: 'ContinuationQueued'; data: { message: QueuedMessage } }
  /**
   * The reset sweep ended the current session ahead of the next message (Hermes' expiry watcher): the next resolve
   * binds a new session for this reason. `lastActivityAt` is the activity the policy measured from.
   */
  | { type: 'SessionExpired'; data: { sessionId: string; reason: AutoResetReason; hadActivity: boolean; lastActivityAt: string; at: string } }
  /** A resolve gave the conversation a reset policy of its own (`options.resetPolicy`); null: back to the server's. */
  | { type: 'ResetPolicySet'; data: { policy: ResetPolicy | null; at: string } }
  /** A resolve reported the start of the gateway's oldest live background process for it (null: none). */
  | { type: 'BackgroundActivityReported'; data: { backgroundProcessSince: string | null; at: string } }
  /** An import set the entry to what the imported gateway last wrote (Hermes' sessions.json entry). */
  | { type: 'RoutingEntryImported'; data: ImportedRoutingEntry };

/**
 * The flags and times of an imported routing entry, as its gateway last wrote them: replaying the gateway's history
 * through the decider cannot give them back exactly (a resume mark would move updated_at, a display name set by
 * hand would be lost).
 */
export interface ImportedRoutingEntry {
  displayName: string | null;
  createdAt: string;
  updatedAt: string;
  suspended: boolean;
  resumePending: boolean;
  resumeReason: ResumeReason | null;
  lastResumeMarkedAt: string | null;
  wasAutoReset: boolean;
  autoResetReason: string | null;
  resetHadActivity: boolean;
  isFreshReset: boolean;
  /** The entry's fields the ledger does not model (Hermes' metadata, model_override, …): the sessions.json export gives them back. */
  carried: CarriedEntryFields | null;
  at: string;
}

/** Fields of an imported entry kept verbatim; `origin` holds those of its source (Hermes' scope_id, profile, …). */
export type CarriedEntryFields = JsonObject & { origin?: JsonObject };

export type ConversationEventType = ConversationEvent['type'];

/** Keys contain ':' and anything an id holds; the stream name keeps the whole key after one fixed prefix. */
/** `tenant` namespaces the stream (see streamScope.ts); without one it is the default tenant's. */
export function conversationStreamName(sessionKey: string, tenant?: string): string {
  return scopedStreamName(`conversation-${sessionKey}`, tenant);
}
