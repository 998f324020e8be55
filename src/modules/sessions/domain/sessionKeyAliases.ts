// The other keys a source's conversation may already live under: a store keeps resolving what it was written with.
import { isolationFlags } from './sessionIsolation.js';
import { joinKey, participantOf, type SessionKeyOptions, sessionKeyFor, whatsappCanonical } from './sessionKey.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

/**
 * Keys this source had under other settings or earlier versions, most likely first, without the current key:
 * the other SESSION_KEY_ESCAPE_IDS form, and the key the ledger gave before its keys matched Hermes' (ids always
 * escaped, a DM's thread before its participant, a thread-typed chat shared like a thread, no Slack workspace).
 * Resolve uses an existing conversation under one of these instead of opening a second one for the same chat.
 */
export function earlierSessionKeysFor(source: SessionSource, options: SessionKeyOptions = {}): string[] {
  const current = sessionKeyFor(source, options);
  const candidates = [sessionKeyFor(source, { ...options, escapeIds: !options.escapeIds }), escapedKeyBeforeHermesParity(source, options)];
  return [...new Set(candidates)].filter((key) => key !== current);
}

function escapedKeyBeforeHermesParity(source: SessionSource, options: SessionKeyOptions): string {
  const { agent = 'main', whatsappAliases } = options;
  const canonical = whatsappCanonical(source, whatsappAliases);
  const head = ['agent', agent, source.platform, source.chatType];
  if (source.chatType === 'dm') {
    const chatId = canonical(source.chatId);
    return joinKey(head, chatId ? [chatId, source.threadId] : [source.threadId, participantOf(source, canonical)], true);
  }
  const { groupSessionsPerUser, threadSessionsPerUser } = isolationFlags(options);
  const inThread = Boolean(source.threadId) || source.chatType === 'thread';
  const isolates = groupSessionsPerUser && (!inThread || threadSessionsPerUser);
  return joinKey(head, [source.chatId, source.threadId, isolates ? participantOf(source, canonical) : undefined], true);
}
