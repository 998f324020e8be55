// A gateway's events name the conversations it drained and resumed: the erased key becomes the pseudonymous one, its origin loses its ids.
import type { GatewayEvent, ResumeCandidate } from '../../../events/gateway/gatewayEvents.js';
import { erasedSource } from './erasedValues.js';
import { type ErasureContext, keyAfterErasure } from './erasureContext.js';
import type { Redactors } from './redactors.js';

function resumeCandidate(candidate: ResumeCandidate, context: ErasureContext): ResumeCandidate {
  if (candidate.sessionKey !== context.sessionKey && candidate.sessionKey !== context.pseudonymousKey) return candidate;
  return { sessionKey: context.pseudonymousKey, sessionId: candidate.sessionId, reason: candidate.reason, origin: erasedSource(candidate.origin) };
}

const keys = (list: string[], context: ErasureContext) => list.map((key) => keyAfterErasure(key, context));

export const gatewayRedactors: Redactors<GatewayEvent> = {
  GatewayStarted: (data, context) => ({
    ...data,
    resume: data.resume.map((candidate) => resumeCandidate(candidate, context)),
    suspended: keys(data.suspended, context),
    marked: keys(data.marked, context),
  }),
  GatewayStopping: (data, context) => ({ ...data, activeKeys: keys(data.activeKeys, context) }),
  GatewayStopped: (data, context) => ({ ...data, drainTimedOut: keys(data.drainTimedOut, context), drainedKeys: keys(data.drainedKeys, context) }),
  // The operator's configuration (platforms and their home channels) names no conversation: nothing of a person to erase.
  GatewayPlatformsRegistered: (data) => data,
};
