// Limits on the messages a request carries, checked at the edge: a refusal costs no load and writes nothing.
import type { SessionLimits } from '../../config/config.js';
import { LedgerError } from '../../errors/ledgerError.js';

export function requireMessageCountWithinLimit(count: number, limits: SessionLimits): void {
  if (count > limits.messagesPerTurn) {
    throw new LedgerError('TOO_MANY_MESSAGES', `a turn records at most ${limits.messagesPerTurn} messages; this one has ${count}`, 413, {
      count,
      limit: limits.messagesPerTurn,
    });
  }
}

/** A message's size is its UTF-8 JSON: what the log stores for it, whatever its shape (text, parts, tool calls). */
export function requireMessageSizesWithinLimit(messages: readonly unknown[], limits: SessionLimits): void {
  messages.forEach((message, index) => {
    const bytes = Buffer.byteLength(JSON.stringify(message) ?? '', 'utf8');
    if (bytes > limits.messageBytes) {
      throw new LedgerError('MESSAGE_TOO_LARGE', `message ${index} is ${bytes} bytes as JSON; the limit is ${limits.messageBytes}`, 413, {
        index,
        bytes,
        limit: limits.messageBytes,
      });
    }
  });
}
