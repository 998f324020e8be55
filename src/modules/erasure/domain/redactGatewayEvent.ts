// A gateway's events name the conversations it drained and resumed, and maybe the person's chat as a home channel: the erased key becomes the pseudonymous one, its origin loses its ids, the chat id a pseudonym.
import type { GatewayEvent, RegisteredPlatform, ResumeCandidate } from '../../../events/gateway/gatewayEvents.js';
import { erasedSource } from './erasedValues.js';
import { ERASED_TEXT, type ErasureContext, keyAfterErasure } from './erasureContext.js';
import type { Redactors } from './redactors.js';

function resumeCandidate(candidate: ResumeCandidate, context: ErasureContext): ResumeCandidate {
  if (candidate.sessionKey !== context.sessionKey && candidate.sessionKey !== context.pseudonymousKey) return candidate;
  return { sessionKey: context.pseudonymousKey, sessionId: candidate.sessionId, reason: candidate.reason, origin: erasedSource(candidate.origin) };
}

const keys = (list: string[], context: ErasureContext) => list.map((key) => keyAfterErasure(key, context));

/**
 * A home channel that is the person's own chat (their DM on that platform) keeps its place, so the registry still
 * shows the platform had one, but its chat id becomes the erasure's pseudonym for it (the same in every gateway's
 * registration) and its name, often the person's, goes. Any other home channel is the operator's and stays.
 */
function erasedHomeChannel(entry: RegisteredPlatform, context: ErasureContext): RegisteredPlatform {
  const { homeChannel } = entry;
  if (!homeChannel || !context.personalChatIds?.get(entry.platform)?.has(homeChannel.chatId)) return entry;
  return { ...entry, homeChannel: { chatId: context.pseudonym(homeChannel.chatId), name: ERASED_TEXT } };
}

export const gatewayRedactors: Redactors<GatewayEvent> = {
  GatewayStarted: (data, context) => ({
    ...data,
    resume: data.resume.map((candidate) => resumeCandidate(candidate, context)),
    suspended: keys(data.suspended, context),
    marked: keys(data.marked, context),
  }),
  GatewayStopping: (data, context) => ({ ...data, activeKeys: keys(data.activeKeys, context) }),
  GatewayStopped: (data, context) => ({ ...data, drainTimedOut: keys(data.drainTimedOut, context), drainedKeys: keys(data.drainedKeys, context) }),
  // The operator's configuration names no conversation, but a home channel may be the person's own chat.
  GatewayPlatformsRegistered: (data, context) => ({ ...data, platforms: data.platforms.map((entry) => erasedHomeChannel(entry, context)) }),
};
