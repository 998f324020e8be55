// One tenant's platform registry as the context prompt reads it: what its live gateways registered, merged.
import type { RegisteredPlatform } from '../../events/gateway/gatewayEvents.js';
import { DEFAULT_PII_SAFE_PLATFORMS } from '../sessions/domain/piiRedaction.js';
import type { PlatformRegistryView } from '../sessions/domain/sessionContextPrompt.js';

export interface LiveGatewayPlatforms {
  gatewayId: string;
  platforms: readonly RegisteredPlatform[];
}

/**
 * Gateways are taken in id order, so the same registrations always give the same view (and the same prompt bytes):
 * a platform's display name and home channel are the first gateway's that gives one. A platform's ids may be hashed
 * (Hermes' `pii_safe`) if any live gateway registering it says so, the cautious reading of gateways that disagree; a
 * platform none registers keeps Hermes' default (WhatsApp, Signal, Telegram, BlueBubbles hashed, the others raw).
 */
export function platformRegistryView(gateways: readonly LiveGatewayPlatforms[]): PlatformRegistryView {
  const ordered = [...gateways].sort((a, b) => (a.gatewayId < b.gatewayId ? -1 : a.gatewayId > b.gatewayId ? 1 : 0));
  const displayNames = new Map<string, string | null>();
  const homeChannels = new Map<string, { platform: string; chatId: string; name: string }>();
  const piiSafe = new Map<string, boolean>();
  for (const { platforms } of ordered) {
    for (const entry of platforms) {
      if (!displayNames.get(entry.platform)) displayNames.set(entry.platform, entry.displayName);
      if (entry.homeChannel && !homeChannels.has(entry.platform)) homeChannels.set(entry.platform, { platform: entry.platform, ...entry.homeChannel });
      piiSafe.set(entry.platform, (piiSafe.get(entry.platform) ?? false) || entry.piiSafe);
    }
  }
  const byPlatform = (a: { platform: string }, b: { platform: string }) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0);
  const piiSafePlatforms = new Set([...DEFAULT_PII_SAFE_PLATFORMS].filter((platform) => !piiSafe.has(platform)));
  for (const [platform, safe] of piiSafe) if (safe) piiSafePlatforms.add(platform);
  return {
    platforms: [...displayNames].map(([platform, displayName]) => ({ platform, displayName })).sort(byPlatform),
    homeChannels: [...homeChannels.values()].sort(byPlatform),
    piiSafePlatforms,
  };
}
