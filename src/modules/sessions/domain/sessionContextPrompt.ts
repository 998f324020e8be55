// The "## Current Session Context" block of the system prompt: where the message came from and who may be talking.
import { describeSource } from './describeSource.js';
import { redactSourceIds } from './piiRedaction.js';
import { isInThread, isSharedMultiUserSession, type SessionIsolationFlags } from './sessionIsolation.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

export interface SessionContextPromptOptions {
  /** Hash user and chat ids before they reach the model (never on Discord). */
  redactPii: boolean;
  connectedPlatforms?: readonly string[];
  flags?: Partial<SessionIsolationFlags>;
}

/**
 * Built only from what is fixed for the session's lifetime, so the prompt cache survives every turn:
 * never the message id, and in a shared session nothing about the sender, whose name the gateway
 * puts in front of each message instead.
 */
export function sessionContextPrompt(source: SessionSource, options: SessionContextPromptOptions): string {
  const shown = options.redactPii ? redactSourceIds(source) : source;
  const lines = ['## Current Session Context', '', `**Source:** ${shown.platform} (${describeSource(shown)})`];
  if (shown.chatId) lines.push(`**Chat ID:** ${shown.chatId}`);
  if (shown.chatTopic) lines.push(`**Channel topic:** ${shown.chatTopic}`);

  if (isSharedMultiUserSession(source, options.flags)) {
    const scope = isInThread(source) ? 'thread' : 'session';
    lines.push(`**Multi-user ${scope}:** messages are prefixed with [sender name]. Several users may take part.`);
  } else {
    const user = describeUser(shown);
    if (user) lines.push(`**User:** ${user}`);
  }

  const platforms = [...new Set(options.connectedPlatforms ?? [])].sort();
  if (platforms.length > 0) lines.push(`**Connected platforms:** ${platforms.join(', ')}`);
  return lines.join('\n');
}

function describeUser(source: SessionSource): string | undefined {
  const id = source.userId || source.userIdAlt;
  if (source.userName && id) return `${source.userName} (ID: ${id})`;
  return source.userName || id;
}
