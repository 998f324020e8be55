// The text a gateway may send the user after an automatic reset, when the policy notifies on that platform.
import type { AutoResetReason, ResetPolicy } from '../../../events/conversation/resetPolicy.js';

/** Like Hermes, only a session that had activity is worth telling about. */
export function autoResetNotice(reason: AutoResetReason, policy: ResetPolicy, platform: string, hadActivity: boolean, timeZone: string): string | null {
  if (!policy.notify || !hadActivity || policy.notify_exclude_platforms.includes(platform)) return null;
  const fresh = 'This is a fresh conversation; earlier messages are no longer in context.';
  if (reason === 'idle') return `Session reset after ${spokenDuration(policy.idle_minutes)} of inactivity. ${fresh}`;
  return `Session reset by the daily reset at ${String(policy.at_hour).padStart(2, '0')}:00 (${timeZone}). ${fresh}`;
}

function spokenDuration(minutes: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (minutes >= 60 && minutes % 60 === 0) return plural(minutes / 60, 'hour');
  if (minutes >= 1 && Number.isInteger(minutes)) return plural(minutes, 'minute');
  return plural(Math.round(minutes * 60), 'second');
}
