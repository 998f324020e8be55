// Gemini generateContent: `systemInstruction` and `contents` of alternating `user` and `model` turns. Calls are
// `functionCall` parts and results `functionResponse` parts in a user turn, both keeping the call's `id`.
import type { GeminiContent, GeminiPart, GeminiRequest } from '../../../client/contextWindowApiTypes.js';
import { type ContentPart, dataUrl, joinedText } from './messageContent.js';
import { argumentsObject } from './toolCallArguments.js';
import { mergedSameRole } from './sameRoleMerge.js';
import type { WindowEntry } from './windowHistory.js';

function part(content: ContentPart): GeminiPart {
  if (content.type === 'text') return { text: content.text };
  const inline = dataUrl(content.url);
  return inline ? { inlineData: { mimeType: inline.mediaType, data: inline.data } } : { fileData: { fileUri: content.url } };
}

function content(entry: Exclude<WindowEntry, { kind: 'system' }>): GeminiContent {
  switch (entry.kind) {
    case 'user':
      return { role: 'user', parts: entry.parts.map(part) };
    case 'assistant':
      return {
        role: 'model',
        parts: [...entry.parts.map(part), ...entry.toolCalls.map((call) => ({ functionCall: { id: call.id, name: call.name, args: argumentsObject(call) } }))],
      };
    case 'toolResult':
      // Gemini's convention: `output` for what the function returned, `error` for why it did not.
      return {
        role: 'user',
        parts: [{ functionResponse: { id: entry.call.id, name: entry.call.name, response: entry.synthetic ? { error: entry.text } : { output: entry.text } } }],
      };
  }
}

export function toGemini(entries: WindowEntry[]): GeminiRequest {
  const system = entries.flatMap((entry) => (entry.kind === 'system' ? [{ text: joinedText(entry.parts) }] : []));
  const contents = mergedSameRole(
    entries.flatMap((entry) => (entry.kind === 'system' ? [] : [content(entry)])),
    (turn: GeminiContent) => turn.parts,
  );
  return { ...(system.length === 0 ? {} : { systemInstruction: { parts: system } }), contents };
}
