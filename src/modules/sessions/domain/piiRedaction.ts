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
 * The source with user and chat ids hashed; names, topics and thread ids are left as they are.
 * Discord sources come back untouched: the agent needs raw ids to write `<@id>` mentions.
 */
export function redactSourceIds(source: SessionSource): SessionSource {
  if (source.platform === 'discord') return source;
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
