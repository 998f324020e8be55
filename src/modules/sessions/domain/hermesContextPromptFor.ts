// Hermes' context prompt for a stored conversation: the ledger's registry and isolation in the shape Hermes' SessionContext has.
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import { hermesSessionContextPrompt } from './hermesContextPrompt.js';
import type { PlatformRegistryView } from './sessionContextPrompt.js';
import { isSharedMultiUserSession, type SessionIsolationFlags } from './sessionIsolation.js';

export interface HermesContextPromptOptions {
  redactPii: boolean;
  connectedPlatforms?: readonly string[];
  flags: SessionIsolationFlags;
  registry: PlatformRegistryView;
}

/**
 * Hermes lists its platforms in its configuration's order and their home channels in that order; here that is the
 * platforms the caller names, in its order, then the registered ones, sorted.
 */
export function hermesContextPromptFor(source: SessionSource, options: HermesContextPromptOptions): string {
  const { registry } = options;
  const connected = [...new Set([...(options.connectedPlatforms ?? []), ...registry.platforms.map((entry) => entry.platform)])];
  const homes = new Map(registry.homeChannels.map((home) => [home.platform, home]));
  return hermesSessionContextPrompt({
    source,
    connectedPlatforms: connected,
    homeChannels: connected.flatMap((platform) => homes.get(platform) ?? []),
    sharedMultiUserSession: isSharedMultiUserSession(source, options.flags),
    redactPii: options.redactPii,
    isRedactable: (platform) => registry.piiSafePlatforms.has(platform),
  });
}
