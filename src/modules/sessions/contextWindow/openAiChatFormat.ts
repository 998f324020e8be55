// OpenAI Chat Completions: the `messages` array. System text stays in place as `system` messages; each call's results
// follow its assistant message as `tool` messages.
import type { ChatContentPart, ChatMessage, OpenAiChatRequest } from '../../../client/contextWindowApiTypes.js';
import { type ContentPart, joinedText } from './messageContent.js';
import type { WindowEntry } from './windowHistory.js';

/** Chat's `name` takes no spaces or <|\/>; one it would refuse is left out rather than sent. */
const participantName = (name: string | undefined) => (name !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(name) ? { name } : {});

function userContent(parts: ContentPart[]): string | ChatContentPart[] {
  if (parts.every((part) => part.type === 'text')) return joinedText(parts);
  return parts.map((part) => (part.type === 'text' ? part : { type: 'image_url', image_url: { url: part.url } }));
}

function chatMessage(entry: WindowEntry): ChatMessage {
  switch (entry.kind) {
    case 'system':
      return { role: 'system', content: joinedText(entry.parts) };
    case 'user':
      return { role: 'user', content: userContent(entry.parts), ...participantName(entry.name) };
    case 'assistant':
      return {
        role: 'assistant',
        content: entry.parts.length === 0 ? null : joinedText(entry.parts),
        ...participantName(entry.name),
        ...(entry.toolCalls.length === 0
          ? {}
          : {
              tool_calls: entry.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
            }),
      };
    case 'toolResult':
      return { role: 'tool', tool_call_id: entry.call.id, content: entry.text };
  }
}

export function toOpenAiChat(entries: WindowEntry[]): OpenAiChatRequest {
  return { messages: entries.map(chatMessage) };
}
