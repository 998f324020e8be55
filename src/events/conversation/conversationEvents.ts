// Events of a `conversation-<session key>` stream: which session a key points at, and its flags.
import type { SessionSource } from '../../modules/sessions/domain/sessionSource.js';

export type SessionBindReason = 'new' | 'reset' | 'suspended' | 'switch' | 'forced' | 'resume_expired';
export type ResumeReason = 'restart_timeout' | 'shutdown_timeout' | 'restart_interrupted';
export const resumeReasons: readonly ResumeReason[] = ['restart_timeout', 'shutdown_timeout', 'restart_interrupted'];

export type ConversationEvent =
  | {
      type: 'ConversationOpened';
      data: { sessionKey: string; origin: SessionSource; displayName: string | null; gatewayId: string; at: string };
    }
  | {
      type: 'SessionBound';
      data: {
        sessionId: string;
        reason: SessionBindReason;
        previousSessionId: string | null;
        /** Whether the session replaced had any turn (the seed's reset_had_activity). */
        previousHadActivity: boolean;
        origin: SessionSource;
        gatewayId: string;
        at: string;
      };
    }
  | { type: 'ConversationTouched'; data: { gatewayId: string; at: string } }
  | { type: 'Suspended'; data: { reason: string; at: string } }
  | { type: 'ResumeMarked'; data: { reason: ResumeReason; at: string } }
  | { type: 'ResumeCleared'; data: { reason: 'turn_completed' | 'manual'; at: string } }
  | { type: 'ConversationPruned'; data: { idleSince: string; at: string } };

export type ConversationEventType = ConversationEvent['type'];

/** Keys contain ':' and anything an id holds; the stream name keeps the whole key after one fixed prefix. */
export function conversationStreamName(sessionKey: string): string {
  return `conversation-${sessionKey}`;
}
