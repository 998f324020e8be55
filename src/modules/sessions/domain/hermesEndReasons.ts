// The ledger's end and reset reasons in the names Hermes writes to state.db's end_reason and sessions.json's auto_reset_reason.
import type { SessionEndReason } from '../../../events/session/sessionEvents.js';

/**
 * Hermes ends a /new or /reset session with `session_reset`, a session switched away from with `session_switch`, and
 * an automatically replaced one with its reset reason (`idle`, `daily`, `suspended`, `resume_pending_expired`). The
 * log keeps the ledger's names; a Hermes tool reads these. A forced new session (resolve's `forceNew`) is Hermes'
 * `force_new`, whose route transition is named `session_reset`; `superseded` (a session replaced without its end
 * recorded) has no Hermes name and stays as it is.
 */
const HERMES_NAMES: Readonly<Record<SessionEndReason, string>> = {
  reset: 'session_reset',
  switch: 'session_switch',
  forced: 'session_reset',
  idle: 'idle',
  daily: 'daily',
  suspended: 'suspended',
  resume_expired: 'resume_pending_expired',
  superseded: 'superseded',
};

export function hermesEndReason(reason: string): string;
export function hermesEndReason(reason: string | null): string | null;
export function hermesEndReason(reason: string | null): string | null {
  if (reason === null) return null;
  return Object.hasOwn(HERMES_NAMES, reason) ? HERMES_NAMES[reason as SessionEndReason] : reason;
}
