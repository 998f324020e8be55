// ResolveSession: open the conversation with a new session, or keep its session unless something replaces it, in
// order: forceNew, a suspension, the reset sweep's expiry, an expired resume mark, the reset policy; else a touch.
import type { ConversationEvent, SessionBindReason } from '../../../../events/conversation/conversationEvents.js';
import type { ResetPolicy } from '../../../../events/conversation/resetPolicy.js';
import type { SessionSource } from '../../../../events/conversation/sessionSource.js';
import { noResetRules, type ResetRules } from '../../../../config/resetPolicySettings.js';
import type { SessionIsolationFlags } from '../../../sessions/domain/sessionIsolation.js';
import { effectiveResetPolicy } from '../../resetPolicy/effectiveResetPolicy.js';
import { policyExpiry, type SessionWork, touchIntervalSecondsUnder } from '../../resetPolicy/policyExpiry.js';
import { bind, queueDepth } from '../conversationRules.js';
import { type ConversationState, initialConversationState } from '../conversationState.js';

export interface ResolveSession {
  type: 'ResolveSession';
  sessionKey: string;
  source: SessionSource;
  gatewayId: string;
  forceNew: boolean;
  /** The isolation settings this resolve keyed the source with (the request's, else the server's); kept when it opens the conversation. */
  isolation?: SessionIsolationFlags;
  /** Used only if the decision creates a session. */
  newSessionId: string;
  /** Whether the current session has had a turn; asked only when a reset may happen. */
  currentSessionHadActivity: boolean;
  /** This resolve's options.resetPolicy: undefined keeps the conversation's own, null drops it. */
  resetPolicy?: ResetPolicy | null;
  /** This resolve's activity.backgroundProcessSince: undefined reports nothing. */
  backgroundProcessSince?: string | null;
  /** The server's reset policies; none given: nothing resets by policy (the importer's replays). */
  resetRules?: ResetRules;
  /** The current session's work, read only when the policy may have expired it; without it nothing resets. */
  sessionWork?: SessionWork | null;
  freshnessSeconds: number;
  touchIntervalSeconds: number;
  now: string;
}

export function decideResolveSession(command: ResolveSession, state: ConversationState): ConversationEvent[] {
  const { source, gatewayId, now } = command;
  if (state.status === 'absent') {
    return [
      {
        type: 'ConversationOpened',
        data: {
          sessionKey: command.sessionKey,
          origin: source,
          displayName: source.chatName ?? null,
          gatewayId,
          at: now,
          ...(command.isolation === undefined ? {} : { isolation: command.isolation }),
        },
      },
      { ...bind(state, command.newSessionId, 'new', false, source, gatewayId, now) },
      ...reportedWithResolve(initialConversationState(), command),
    ];
  }
  const reported = reportedWithResolve(state, command);
  const rebind = (reason: SessionBindReason, hadActivity: boolean) => [
    ...reported,
    bind(state, command.newSessionId, reason, hadActivity, source, gatewayId, now),
  ];
  if (command.forceNew) return rebind('forced', command.currentSessionHadActivity);
  // Suspended beats resume-pending: /stop is a hard sweep.
  if (state.suspended) return rebind('suspended', command.currentSessionHadActivity);
  // The reset sweep already ended the session: this message starts the new one.
  if (state.expired) return rebind(state.expired.reason, state.expired.hadActivity);
  if (state.resumePending && state.lastResumeMarkedAt) {
    const ageSeconds = (Date.parse(now) - Date.parse(state.lastResumeMarkedAt)) / 1000;
    if (command.freshnessSeconds > 0 && ageSeconds > command.freshnessSeconds) return rebind('resume_expired', command.currentSessionHadActivity);
  }
  const own = command.resetPolicy !== undefined ? command.resetPolicy : state.resetPolicy;
  const resetRules = command.resetRules ?? noResetRules;
  const policy = effectiveResetPolicy(resetRules, state.origin, own);
  if (command.sessionWork && command.sessionWork.sessionId === state.sessionId) {
    const backgroundProcessSince = command.backgroundProcessSince !== undefined ? command.backgroundProcessSince : state.backgroundProcessSince;
    const expiry = policyExpiry(
      policy,
      { updatedAt: state.updatedAt, queuedMessages: queueDepth(state), backgroundProcessSince },
      command.sessionWork,
      now,
      resetRules.timeZone,
    );
    if (expiry.expired) return rebind(expiry.reason, expiry.hadActivity);
  }
  const idleSeconds = (Date.parse(now) - Date.parse(state.updatedAt)) / 1000;
  if (state.gatewayId !== gatewayId || state.isFreshReset || idleSeconds >= touchIntervalSecondsUnder(policy, command.touchIntervalSeconds)) {
    const touched = { gatewayId, at: now, ...(state.isFreshReset ? { freshResetConsumed: true as const } : {}) };
    return [...reported, { type: 'ConversationTouched', data: touched }];
  }
  return reported;
}

/** What a resolve reports besides the message (its own reset policy, its background processes), recorded when it changes. */
function reportedWithResolve(state: ConversationState, command: ResolveSession): ConversationEvent[] {
  const events: ConversationEvent[] = [];
  if (command.resetPolicy !== undefined && JSON.stringify(command.resetPolicy) !== JSON.stringify(state.resetPolicy)) {
    events.push({ type: 'ResetPolicySet', data: { policy: command.resetPolicy, at: command.now } });
  }
  if (command.backgroundProcessSince !== undefined && command.backgroundProcessSince !== state.backgroundProcessSince) {
    events.push({ type: 'BackgroundActivityReported', data: { backgroundProcessSince: command.backgroundProcessSince, at: command.now } });
  }
  return events;
}
