// Anthropic Messages: top-level `system` and `messages` in which user and assistant alternate. Calls are `tool_use`
// blocks; their results `tool_result` blocks at the head of the next user message; same-role neighbours merge.
import type { AnthropicBlock, AnthropicMessage, AnthropicRequest } from '../../../client/contextWindowApiTypes.js';
import { type ContentPart, dataUrl, joinedText } from './messageContent.js';
import { argumentsObject } from './toolCallArguments.js';
import { mergedSameRole } from './sameRoleMerge.js';
import type { WindowEntry } from './windowHistory.js';

function block(part: ContentPart): AnthropicBlock {
  if (part.type === 'text') return part;
  const inline = dataUrl(part.url);
  return { type: 'image', source: inline ? { type: 'base64', media_type: inline.mediaType, data: inline.data } : { type: 'url', url: part.url } };
}

function message(entry: Exclude<WindowEntry, { kind: 'system' }>): AnthropicMessage {
  switch (entry.kind) {
    case 'user':
      return { role: 'user', content: entry.parts.map(block) };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...entry.parts.map(block),
          ...entry.toolCalls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: argumentsObject(call) })),
        ],
      };
    case 'toolResult':
      // A synthetic result is an error result: the model then knows the call did not do its work.
      return {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: entry.call.id, content: entry.text, ...(entry.synthetic ? { is_error: true as const } : {}) }],
      };
  }
}

export function toAnthropic(entries: WindowEntry[]): AnthropicRequest {
  const system = entries.flatMap((entry) => (entry.kind === 'system' ? [joinedText(entry.parts)] : []));
  const messages = mergedSameRole(
    entries.flatMap((entry) => (entry.kind === 'system' ? [] : [message(entry)])),
    (turn: AnthropicMessage) => turn.content,
  );
  return { ...(system.length === 0 ? {} : { system: system.join('\n\n') }), messages };
}
