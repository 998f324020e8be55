// OpenAI Responses: the `input` items. Messages are `message` items (system text as `system` role items, in place),
// calls `function_call` items and results `function_call_output` items, paired by `call_id`.
import type { OpenAiResponsesRequest, ResponsesInputItem, ResponsesInputPart as InputPart } from '../../../client/contextWindowApiTypes.js';
import { type ContentPart, joinedText } from './messageContent.js';
import type { WindowEntry } from './windowHistory.js';

function userContent(parts: ContentPart[]): string | InputPart[] {
  if (parts.every((part) => part.type === 'text')) return joinedText(parts);
  return parts.map((part) => (part.type === 'text' ? { type: 'input_text', text: part.text } : { type: 'input_image', image_url: part.url, detail: 'auto' }));
}

function inputItems(entry: WindowEntry): ResponsesInputItem[] {
  switch (entry.kind) {
    case 'system':
      return [{ type: 'message', role: 'system', content: joinedText(entry.parts) }];
    case 'user':
      return [{ type: 'message', role: 'user', content: userContent(entry.parts) }];
    case 'assistant':
      return [
        ...(entry.parts.length === 0 ? [] : [{ type: 'message' as const, role: 'assistant' as const, content: joinedText(entry.parts) }]),
        ...entry.toolCalls.map((call) => ({ type: 'function_call' as const, call_id: call.id, name: call.name, arguments: call.arguments })),
      ];
    case 'toolResult':
      return [{ type: 'function_call_output', call_id: entry.call.id, output: entry.text }];
  }
}

export function toOpenAiResponses(entries: WindowEntry[]): OpenAiResponsesRequest {
  return { input: entries.flatMap(inputItems) };
}
