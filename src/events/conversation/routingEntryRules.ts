// Rules of the routing entry that both folds of a conversation apply: the conversation's own (evolveConversation) and
// the sessions index's entry (evolveConversationEntry). They sit with the stored shapes, below both.
import type { CarriedEntryFields, SessionBindReason } from './conversationEvents.js';
import type { AutoResetReason } from './resetPolicy.js';

/** Binding reasons Hermes counts as automatic resets (was_auto_reset). */
export const automaticBindReasons: readonly SessionBindReason[] = ['suspended', 'resume_expired', 'idle', 'daily'];

/** Carried fields that describe the entry's current session: they go when another session is bound. */
const SESSION_SCOPED_CARRIED_FIELDS: readonly string[] = ['active_turn_token', 'active_turn_started_at', 'prev_session_id', 'cost_status', 'expiry_finalized'];

/** The carried fields that outlive a change of session. */
export function withoutSessionScopedFields(carried: CarriedEntryFields | null): CarriedEntryFields | null {
  if (!carried) return null;
  const kept = Object.fromEntries(Object.entries(carried).filter(([key]) => !SESSION_SCOPED_CARRIED_FIELDS.includes(key))) as CarriedEntryFields;
  return Object.keys(kept).length > 0 ? kept : null;
}

/** The reset sweep ended the entry's current session (SessionExpired): the next resolve binds a new one for this reason. */
export interface ExpiredSession {
  sessionId: string;
  reason: AutoResetReason;
  hadActivity: boolean;
  at: string;
}
