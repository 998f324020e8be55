// Hermes' _should_reset: whether a policy has expired a session, and why; and what keeps a busy one from resetting.
import type { AutoResetReason, ResetPolicy } from '../../../events/conversation/resetPolicy.js';
import { latestDailyBoundary } from './dailyBoundary.js';

/** idle: now is past the last activity plus idle_minutes; daily: the last activity is before the latest at_hour boundary; both: idle first, as Hermes checks. */
export function resetDueReason(policy: ResetPolicy, lastActivityAt: string, now: string, timeZone: string): AutoResetReason | null {
  if (policy.mode === 'none') return null;
  const last = Date.parse(lastActivityAt);
  const at = new Date(now);
  if ((policy.mode === 'idle' || policy.mode === 'both') && at.getTime() > last + policy.idle_minutes * 60_000) return 'idle';
  if ((policy.mode === 'daily' || policy.mode === 'both') && last < latestDailyBoundary(at, policy.at_hour, timeZone).getTime()) return 'daily';
  return null;
}

/** What a resolve or the sweep knows of the conversation's work in progress when a reset is due. */
export interface ConversationWork {
  /** A ledger turn started and not yet recorded on the current session. */
  turnInFlight: boolean;
  /** A runtime turn running or waiting (an approval, a question) on the conversation's runtime session. */
  runtimeTurnActive: boolean;
  queuedMessages: number;
  /** The start of the gateway's oldest live background process, as last reported; null: none. */
  backgroundProcessSince: string | null;
}

export type ResetBlocker = 'turn_in_flight' | 'runtime_turn' | 'queued_messages' | 'background_process';

/** Never reset a busy conversation; a background process stops counting once bg_process_max_age_hours old (0: never). */
export function resetBlockedBy(work: ConversationWork, policy: ResetPolicy, now: string): ResetBlocker | null {
  if (work.turnInFlight) return 'turn_in_flight';
  if (work.runtimeTurnActive) return 'runtime_turn';
  if (work.queuedMessages > 0) return 'queued_messages';
  if (work.backgroundProcessSince !== null) {
    const ageMs = Date.parse(now) - Date.parse(work.backgroundProcessSince);
    if (policy.bg_process_max_age_hours === 0 || ageMs < policy.bg_process_max_age_hours * 3_600_000) return 'background_process';
  }
  return null;
}
