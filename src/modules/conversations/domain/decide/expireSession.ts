// ExpireSession (the reset sweep): end the current session if its policy expired it and nothing keeps it busy; the
// next resolve binds the new one.
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import type { ResetRules } from '../../../../config/resetPolicySettings.js';
import { effectiveResetPolicy } from '../../resetPolicy/effectiveResetPolicy.js';
import { policyExpiry, type SessionWork } from '../../resetPolicy/policyExpiry.js';
import { queueDepth } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

/** The reset sweep: end the current session if its policy expired it and nothing keeps it busy. */
export interface ExpireSession {
  type: 'ExpireSession';
  resetRules: ResetRules;
  sessionWork: SessionWork | null;
  now: string;
}

export function decideExpireSession(command: ExpireSession, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent' || state.suspended || state.expired || state.sessionId === null) return [];
  if (command.sessionWork === null || command.sessionWork.sessionId !== state.sessionId) return [];
  const policy = effectiveResetPolicy(command.resetRules, state.origin, state.resetPolicy);
  const expiry = policyExpiry(
    policy,
    { updatedAt: state.updatedAt, queuedMessages: queueDepth(state), backgroundProcessSince: state.backgroundProcessSince },
    command.sessionWork,
    command.now,
    command.resetRules.timeZone,
  );
  if (!expiry.expired) return [];
  const { reason, hadActivity, lastActivityAt } = expiry;
  return [{ type: 'SessionExpired', data: { sessionId: state.sessionId, reason, hadActivity, lastActivityAt, at: command.now } }];
}
