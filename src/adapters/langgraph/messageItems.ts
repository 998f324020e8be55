// The chat messages a checkpoint wrote, as plain items with a role and text: readable in the ledger's timeline and searchable.
import type { JsonObject } from '../../client/ledgerApiTypes.js';

export interface MessageItem extends JsonObject {
  id: string;
  type: 'message';
  role: string;
  content: string;
  source: 'langgraph';
  messageType: string;
  messageId: string;
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
}

/** Text beyond this is left out of the copy (the checkpoint keeps the message whole). */
const MAX_TEXT = 32_000;

const ROLES: Record<string, string> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool', developer: 'developer', function: 'function' };

interface MessageLike {
  id?: unknown;
  content?: unknown;
  role?: unknown;
  getType?: () => string;
  _getType?: () => string;
}

/** A LangChain message (`HumanMessage`, `AIMessage`…), told by its shape: the adapter loads nothing of LangChain. */
function messageType(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const message = value as MessageLike;
  const type = typeof message.getType === 'function' ? message.getType() : typeof message._getType === 'function' ? message._getType() : undefined;
  return typeof type === 'string' && 'content' in message ? type : undefined;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      part !== null && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * One item per message with an id in the channel values written (LangGraph's `MessagesAnnotation` gives every message
 * one), its id derived from the message's: a message stays in the channel for the rest of the thread, and is stored
 * here once.
 */
export function messageItems(
  values: Record<string, unknown>,
  where: { threadId: string; checkpointNs: string; checkpointId: string },
  itemId: (messageId: string) => string,
): MessageItem[] {
  const items: MessageItem[] = [];
  for (const value of Object.values(values)) {
    if (!Array.isArray(value)) continue;
    for (const message of value) {
      const type = messageType(message);
      const id = (message as MessageLike | undefined)?.id;
      if (type === undefined || typeof id !== 'string' || id === '') continue;
      const role = type === 'generic' && typeof (message as MessageLike).role === 'string' ? ((message as MessageLike).role as string) : (ROLES[type] ?? type);
      items.push({
        id: itemId(id),
        type: 'message',
        role,
        content: textOf((message as MessageLike).content).slice(0, MAX_TEXT),
        source: 'langgraph',
        messageType: type,
        messageId: id,
        ...where,
      });
    }
  }
  return items;
}
