// One rule for resolve and the sweep alike: has the policy expired the current session, and may it end now?
import type { AutoResetReason, ResetPolicy } from '../../../events/conversation/resetPolicy.js';
import { resetBlockedBy, type ResetBlocker, resetDueReason } from './resetDue.js';

/** What the current session's stream (and its runtime session's) say, read only when a reset may be due. */
export interface SessionWork {
  /** The session these facts are about: a decision on a conversation bound elsewhere meanwhile ignores them. */
  sessionId: string;
  /** The session's last event (a turn, a memory write): activity the conversation's own time may not show. */
  lastEventAt: string | null;
  turnInFlight: boolean;
  runtimeTurnActive: boolean;
  /** Whether it had any turn (Hermes' reset_had_activity). */
  hadActivity: boolean;
}

export interface ConversationActivity {
  /** The conversation's own last activity (resolve, suspend, resume mark). */
  updatedAt: string;
  queuedMessages: number;
  backgroundProcessSince: string | null;
}

export type PolicyExpiry =
  { expired: false; blockedBy: ResetBlocker | null } | { expired: true; reason: AutoResetReason; lastActivityAt: string; hadActivity: boolean };

/** The conversation's time alone is a lower bound of its last activity: when it shows nothing due, nothing is. */
export function policyResetMayBeDue(policy: ResetPolicy, conversationUpdatedAt: string, now: string, timeZone: string): boolean {
  return resetDueReason(policy, conversationUpdatedAt, now, timeZone) !== null;
}

export function policyExpiry(policy: ResetPolicy, activity: ConversationActivity, work: SessionWork, now: string, timeZone: string): PolicyExpiry {
  const lastActivityAt = work.lastEventAt !== null && Date.parse(work.lastEventAt) > Date.parse(activity.updatedAt) ? work.lastEventAt : activity.updatedAt;
  const reason = resetDueReason(policy, lastActivityAt, now, timeZone);
  if (reason === null) return { expired: false, blockedBy: null };
  const blockedBy = resetBlockedBy(
    {
      turnInFlight: work.turnInFlight,
      runtimeTurnActive: work.runtimeTurnActive,
      queuedMessages: activity.queuedMessages,
      backgroundProcessSince: activity.backgroundProcessSince,
    },
    policy,
    now,
  );
  if (blockedBy !== null) return { expired: false, blockedBy };
  return { expired: true, reason, lastActivityAt, hadActivity: work.hadActivity };
}

/** Activity is coalesced (TOUCH_INTERVAL_SECONDS), but never so coarsely that an idle window is measured from a stale time. */
export function touchIntervalSecondsUnder(policy: ResetPolicy, touchIntervalSeconds: number): number {
  if (policy.mode !== 'idle' && policy.mode !== 'both') return touchIntervalSeconds;
  return Math.min(touchIntervalSeconds, (policy.idle_minutes * 60) / 10);
}
