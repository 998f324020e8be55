// The session key, byte for byte Hermes' build_session_key: `agent:{agent}:{platform}:{chatType}[:{slack scope}][:{chatId}]…`.
import { resolveWhatsappId, type WhatsappAliases } from './canonicalWhatsappId.js';
import { isolatesParticipant, type SessionIsolationFlags } from './sessionIsolation.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

export interface SessionKeyOptions extends Partial<SessionIsolationFlags> {
  agent?: string;
  /** Alias → canonical WhatsApp id, for linked-device ids that do not carry the phone number. */
  whatsappAliases?: WhatsappAliases;
  /**
   * SESSION_KEY_ESCAPE_IDS: escape ':' and '%' inside ids, so that no two sources share a key. Off by default:
   * Hermes keeps ids as they are (Signal `uuid:…`, `group:…`, Matrix `!room:server`).
   */
  escapeIds?: boolean;
}

/**
 * Hermes' layout: DMs are keyed by chat id (then thread), else by the participant (then thread), else by the thread;
 * groups, channels and threads by chat id, thread, and the participant when isolation asks for it. A Slack
 * workspace (`guildId`, Hermes' scope_id) comes before the chat id.
 */
export function sessionKeyFor(source: SessionSource, options: SessionKeyOptions = {}): string {
  const { agent = 'main', whatsappAliases, escapeIds = false, ...flags } = options;
  const canonical = whatsappCanonical(source, whatsappAliases);
  const head = ['agent', agent, source.platform, source.chatType];
  const scope = source.platform === 'slack' ? [source.guildId] : [];
  if (source.chatType === 'dm') {
    // A DM chat already belongs to one person, so it needs the participant only when there is no chat id.
    const chatId = canonical(source.chatId);
    const tail = chatId ? [chatId, source.threadId] : [participantOf(source, canonical), source.threadId];
    return joinKey(head, [...scope, ...tail], escapeIds);
  }
  // Group chat ids name the group, not a person: WhatsApp group ids are left as sent.
  const participant = isolatesParticipant(source, flags) ? participantOf(source, canonical) : undefined;
  return joinKey(head, [...scope, source.chatId, source.threadId, participant], escapeIds);
}

type Canonical = (id: string | undefined) => string | undefined;

export function whatsappCanonical(source: SessionSource, aliases: WhatsappAliases | undefined): Canonical {
  return source.platform === 'whatsapp' ? (id) => resolveWhatsappId(id, aliases) : (id) => id || undefined;
}

/** The stable alternate id wins: Signal and Feishu user ids can change, their UUID / union_id do not. */
export function participantOf(source: SessionSource, canonical: Canonical): string | undefined {
  return canonical(source.userIdAlt) ?? canonical(source.userId);
}

/** With SESSION_KEY_ESCAPE_IDS, ':' and '%' inside a part: `chatId "a:b"` and `chatId "a", threadId "b"` then never collide. */
export function escapeKeyPart(part: string): string {
  return part.replaceAll('%', '%25').replaceAll(':', '%3A');
}

export function joinKey(head: string[], tail: (string | undefined)[], escapeIds: boolean): string {
  const ids = tail.filter((part): part is string => Boolean(part));
  return [...head, ...(escapeIds ? ids.map(escapeKeyPart) : ids)].join(':');
}
