// The session key: the deterministic name of a conversation channel, `agent:{agent}:{platform}:{chatType}[:{chatId}][:{threadId}][:{participant}]`.
import { resolveWhatsappId, type WhatsappAliases } from './canonicalWhatsappId.js';
import { isolatesParticipant, type SessionIsolationFlags } from './sessionIsolation.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

export interface SessionKeyOptions extends Partial<SessionIsolationFlags> {
  agent?: string;
  /** Alias → canonical WhatsApp id, for linked-device ids that do not carry the phone number. */
  whatsappAliases?: WhatsappAliases;
}

export function sessionKeyFor(source: SessionSource, options: SessionKeyOptions = {}): string {
  const { agent = 'main', whatsappAliases, ...flags } = options;
  const whatsapp = source.platform === 'whatsapp';
  const canonical = (id: string | undefined) => (whatsapp ? resolveWhatsappId(id, whatsappAliases) : id || undefined);
  // The stable alternate id wins: Signal and Feishu user ids can change, their UUID / union_id do not.
  const participant = () => canonical(source.userIdAlt) ?? canonical(source.userId);
  const head = ['agent', agent, source.platform, source.chatType];

  if (source.chatType === 'dm') {
    // A DM chat already belongs to one person, so it never needs the participant.
    const chatId = canonical(source.chatId);
    const tail = chatId ? [chatId, source.threadId] : [source.threadId, participant()];
    return joinKey(head, tail);
  }
  // Group chat ids name the group, not a person: WhatsApp group ids are left as sent.
  const tail = [source.chatId, source.threadId, isolatesParticipant(source, flags) ? participant() : undefined];
  return joinKey(head, tail);
}

/**
 * Hermes joins raw ids with ':', so `chatId "a:b"` and `chatId "a", threadId "b"` collide. We escape
 * ':' and '%' inside each part: keys of ordinary ids are byte-for-byte Hermes', and no two sources collide.
 */
export function escapeKeyPart(part: string): string {
  return part.replaceAll('%', '%25').replaceAll(':', '%3A');
}

function joinKey(head: string[], tail: (string | undefined)[]): string {
  return [...head, ...tail.filter((part): part is string => Boolean(part))].map(escapeKeyPart).join(':');
}
