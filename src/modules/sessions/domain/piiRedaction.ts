// PII redaction for prompt text only: routing, session keys and adapter calls always use the raw ids.
import { createHash } from 'node:crypto';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

function hash12(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 12);
}

/** `12345` → `user_<first 12 hex of sha256>`. */
export function redactUserId(userId: string): string {
  return `user_${hash12(userId)}`;
}

/** `telegram:-100123` → `telegram:<12 hex>`, `-100123` → `<12 hex>`: the prefix says which network, not who. */
export function redactChatId(chatId: string): string {
  const colon = chatId.indexOf(':');
  if (colon <= 0) return hash12(chatId);
  return `${chatId.slice(0, colon)}:${hash12(chatId.slice(colon + 1))}`;
}

/**
 * `agent:main:telegram:dm:12345` → `agent:main:telegram:dm:<12 hex>`: namespace, platform and chat type stay, the ids
 * after them are hashed as one. A key of another shape is hashed whole.
 */
export function redactSessionKey(sessionKey: string): string {
  const parts = sessionKey.split(':');
  if (parts[0] !== 'agent' || parts.length < 4) return hash12(sessionKey);
  if (parts.length === 4) return sessionKey;
  return `${parts.slice(0, 4).join(':')}:${hash12(parts.slice(4).join(':'))}`;
}

/**
 * Hermes' `_PII_SAFE_PLATFORMS`: where ids may be hashed when no live gateway registered the platform, because
 * nothing there needs a raw id to mention someone (Discord's `<@id>` does, so Discord is not one). A registration
 * (PUT /v1/gateways/{id}/platforms, `piiSafe`) decides for the platforms it names.
 */
export const DEFAULT_PII_SAFE_PLATFORMS: ReadonlySet<string> = new Set(['whatsapp', 'signal', 'telegram', 'bluebubbles']);

/** The source with user and chat ids hashed; names, topics and thread ids are left as they are. */
export function redactSourceIds(source: SessionSource): SessionSource {
  const user = (id: string | undefined) => (id ? redactUserId(id) : id);
  const chat = (id: string | undefined) => (id ? redactChatId(id) : id);
  return {
    ...source,
    userId: user(source.userId),
    userIdAlt: user(source.userIdAlt),
    chatId: chat(source.chatId),
    chatIdAlt: chat(source.chatIdAlt),
    parentChatId: chat(source.parentChatId),
  };
}
