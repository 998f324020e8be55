// The "## Current Session Context" block of the system prompt: where the message came from, who may be talking, the session, where else the agent can reach.
import { describeSource } from './describeSource.js';
import { DEFAULT_PII_SAFE_PLATFORMS, redactChatId, redactSessionKey, redactSourceIds } from './piiRedaction.js';
import { isInThread, isSharedMultiUserSession, type SessionIsolationFlags } from './sessionIsolation.js';
import { UNTRUSTED_METADATA_PREFACE, untrustedPromptValue } from './untrustedPromptValue.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

/** What the live gateways registered, merged for one tenant (see platformRegistry.ts). */
export interface PlatformRegistryView {
  /** Sorted by platform; the display name is null when no live gateway gave one. */
  platforms: ReadonlyArray<{ platform: string; displayName: string | null }>;
  /** One per platform at most, sorted by platform. */
  homeChannels: ReadonlyArray<{ platform: string; chatId: string; name: string }>;
  /** Platforms whose ids are hashed under redaction (Hermes' `pii_safe`); every other platform's stay raw. */
  piiSafePlatforms: ReadonlySet<string>;
}

export const emptyPlatformRegistry: PlatformRegistryView = { platforms: [], homeChannels: [], piiSafePlatforms: DEFAULT_PII_SAFE_PLATFORMS };

export interface SessionContextPromptOptions {
  /** Hash user and chat ids before they reach the model, on the platforms where they may be (`piiSafePlatforms`). */
  redactPii: boolean;
  /** Platforms the caller names besides the registered ones. */
  connectedPlatforms?: readonly string[];
  flags?: Partial<SessionIsolationFlags>;
  registry?: PlatformRegistryView;
  /** The session's own metadata; `startedAt` is when the session was created. */
  session?: { sessionKey: string; sessionId: string; startedAt: string | null };
}

// Names and topics are capped as Hermes caps them; an id is never cut, a cut id would name someone else.
const quotedName = (value: string) => untrustedPromptValue(value);
const quotedId = (value: string) => untrustedPromptValue(value, 0);

/**
 * Built only from what is fixed for the session's lifetime and the platform registry, so the prompt cache survives
 * every turn: never the message id, and in a shared session nothing about the sender, whose name the gateway
 * puts in front of each message instead. Every value a chat or a gateway supplies is one quoted line
 * (untrustedPromptValue), so a name cannot forge a line of the block.
 */
export function sessionContextPrompt(source: SessionSource, options: SessionContextPromptOptions): string {
  const registry = options.registry ?? emptyPlatformRegistry;
  const redacts = (platform: string) => options.redactPii && registry.piiSafePlatforms.has(platform);
  const shown = redacts(source.platform) ? redactSourceIds(source) : source;
  const lines = ['## Current Session Context', '', UNTRUSTED_METADATA_PREFACE, '', `**Source:** ${shown.platform} (${quotedName(describeSource(shown))})`];
  if (shown.chatId) lines.push(`**Chat ID:** ${quotedId(shown.chatId)}`);
  if (shown.chatTopic) lines.push(`**Channel topic:** ${quotedName(shown.chatTopic)}`);

  if (isSharedMultiUserSession(source, options.flags)) {
    const scope = isInThread(source) ? 'thread' : 'session';
    lines.push(`**Multi-user ${scope}:** messages are prefixed with [sender name]. Several users may take part.`);
  } else {
    const user = describeUser(shown);
    if (user) lines.push(`**User:** ${user}`);
  }

  if (options.session) {
    const { sessionKey, sessionId, startedAt } = options.session;
    lines.push(`**Session key:** ${quotedId(redacts(source.platform) ? redactSessionKey(sessionKey) : sessionKey)}`, `**Session ID:** ${sessionId}`);
    if (startedAt) lines.push(`**Session started:** ${startedAt}`);
  }

  const displayNames = new Map(registry.platforms.map((entry) => [entry.platform, entry.displayName]));
  const platforms = [...new Set([...(options.connectedPlatforms ?? []), ...displayNames.keys()])].sort();
  if (platforms.length > 0) {
    const named = platforms.map((platform) => {
      const displayName = displayNames.get(platform);
      return displayName ? `${platform} (${quotedName(displayName)})` : platform;
    });
    lines.push(`**Connected platforms:** ${named.join(', ')}`);
  }

  if (registry.homeChannels.length > 0) {
    lines.push('', '**Home channels (where scheduled-job output can be delivered):**');
    for (const home of registry.homeChannels) {
      const chatId = redacts(home.platform) ? redactChatId(home.chatId) : home.chatId;
      lines.push(`  - ${home.platform}: ${quotedName(home.name)} (ID: ${quotedId(chatId)})`);
    }
  }
  return lines.join('\n');
}

function describeUser(source: SessionSource): string | undefined {
  const id = source.userId || source.userIdAlt;
  if (source.userName && id) return `${quotedName(source.userName)} (ID: ${quotedId(id)})`;
  if (source.userName) return quotedName(source.userName);
  return id && quotedId(id);
}
