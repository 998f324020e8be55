// GET /v1/sessions/{id}/context-window as a pure function: the live transcript paired, cut to maxTokens, and converted.
import type { ContextWindowFormat, ContextWindowRequests, DroppedMessage, SyntheticToolResult } from '../../../client/contextWindowApiTypes.js';
import type { StoredMessage } from '../../../events/session/sessionMessages.js';
import { toAnthropic } from './anthropicFormat.js';
import { toGemini } from './geminiFormat.js';
import { toOpenAiChat } from './openAiChatFormat.js';
import { toOpenAiResponses } from './openAiResponsesFormat.js';
import { cutWindow } from './windowCut.js';
import { type WindowEntry, pairedHistory } from './windowHistory.js';

export const contextWindowFormats: { [Format in ContextWindowFormat]: (entries: WindowEntry[]) => ContextWindowRequests[Format] } = {
  'openai-chat': toOpenAiChat,
  'openai-responses': toOpenAiResponses,
  anthropic: toAnthropic,
  gemini: toGemini,
};

export type { ContextWindowFormat };
export const CONTEXT_WINDOW_FORMATS = Object.keys(contextWindowFormats) as [ContextWindowFormat, ...ContextWindowFormat[]];

export interface ContextWindow<Format extends ContextWindowFormat = ContextWindowFormat> {
  format: Format;
  request: ContextWindowRequests[Format];
  estimatedTokens: number;
  maxTokens: number | null;
  withinBudget: boolean;
  cut: { messages: number; estimatedTokens: number };
  /** Results made up for calls that have none in the window (marked here: no provider shape has a field for it). */
  synthetic: SyntheticToolResult[];
  /** Stored messages left out of every window, and why. */
  dropped: DroppedMessage[];
}

/** `messages`: the live transcript of the current slot, oldest first. */
export function contextWindow<Format extends ContextWindowFormat>(
  messages: readonly StoredMessage[],
  format: Format,
  maxTokens?: number,
): ContextWindow<Format> {
  const paired = pairedHistory(messages);
  const window = cutWindow(paired.units, maxTokens);
  const entries: WindowEntry[] = window.units.flatMap((unit) => unit.entries);
  const kept = new Set(entries.flatMap((entry) => (entry.kind === 'toolResult' && entry.synthetic ? [entry.call.id] : [])));
  return {
    format,
    request: contextWindowFormats[format](entries),
    estimatedTokens: window.estimatedTokens,
    maxTokens: maxTokens ?? null,
    withinBudget: window.withinBudget,
    cut: window.cut,
    synthetic: paired.synthetic.filter((result) => kept.has(result.toolCallId)),
    dropped: paired.dropped,
  };
}
