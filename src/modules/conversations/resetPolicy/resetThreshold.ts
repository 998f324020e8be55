// The instant before which a last activity means a policy has expired the session: what the reset sweep asks the index for.
import type { ResetPolicy } from '../../../events/conversation/resetPolicy.js';
import { latestDailyBoundary } from './dailyBoundary.js';

/** resetDueReason holds exactly for a last activity before this; null for mode none. */
export function resetThreshold(policy: ResetPolicy, now: Date, timeZone: string): Date | null {
  const idle = policy.mode === 'idle' || policy.mode === 'both' ? now.getTime() - policy.idle_minutes * 60_000 : Number.NEGATIVE_INFINITY;
  const daily = policy.mode === 'daily' || policy.mode === 'both' ? latestDailyBoundary(now, policy.at_hour, timeZone).getTime() : Number.NEGATIVE_INFINITY;
  const threshold = Math.max(idle, daily);
  return Number.isFinite(threshold) ? new Date(threshold) : null;
}
