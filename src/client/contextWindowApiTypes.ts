// GET /v1/sessions/{id}/context-window: a session's live transcript as one provider's request body. The service's
// converters (src/modules/sessions/contextWindow/) build exactly these shapes.
import type { JsonObject } from './ledgerApiTypes.js';

export type ContextWindowFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';

// A type, not an interface: the client's query parameter takes it as a record.
export type ContextWindowQuery = {
  format: ContextWindowFormat;
  /** Estimated token budget: the oldest turns are cut, whole, until the window fits; the system text always stays. */
  maxTokens?: number;
};

// OpenAI Chat Completions: `messages`.
export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | {
      role: 'assistant';
      content: string | null;
      name?: string;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };
export interface OpenAiChatRequest {
  messages: ChatMessage[];
}

// OpenAI Responses: `input` items.
export type ResponsesInputPart = { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' };
export type ResponsesInputItem =
  | { type: 'message'; role: 'system' | 'assistant'; content: string }
  | { type: 'message'; role: 'user'; content: string | ResponsesInputPart[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };
export interface OpenAiResponsesRequest {
  input: ResponsesInputItem[];
}

// Anthropic Messages: top-level `system` and alternating `messages`.
export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'tool_use'; id: string; name: string; input: JsonObject }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: true };
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}
export interface AnthropicRequest {
  system?: string;
  messages: AnthropicMessage[];
}

// Gemini generateContent: `systemInstruction` and alternating `contents`.
export type GeminiPart =
  | { text: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { fileUri: string } }
  | { functionCall: { id: string; name: string; args: JsonObject } }
  | { functionResponse: { id: string; name: string; response: { output: string } | { error: string } } };
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}
export interface GeminiRequest {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
}

export interface ContextWindowRequests {
  'openai-chat': OpenAiChatRequest;
  'openai-responses': OpenAiResponsesRequest;
  anthropic: AnthropicRequest;
  gemini: GeminiRequest;
}

/** A result made up for a call the transcript holds no result for (a turn cut by a crash or an interrupt). */
export interface SyntheticToolResult {
  toolCallId: string;
  reason: 'interrupted';
}

export interface DroppedMessage {
  /** The stored message's index in the transcript. */
  messageIndex: number;
  toolCallId: string | null;
  reason: 'no_matching_call' | 'missing_tool_call_id' | 'malformed_tool_call' | 'duplicate_tool_call_id' | 'empty_message';
}

export interface ContextWindowResponse {
  sessionId: string;
  format: ContextWindowFormat;
  /** The provider's request body fragment, of the shape `format` names (ContextWindowRequests). */
  request: OpenAiChatRequest | OpenAiResponsesRequest | AnthropicRequest | GeminiRequest;
  /** ceil(UTF-8 bytes of text, tool names, ids and arguments / 4) + 4 per message, + 1,000 per image. */
  estimatedTokens: number;
  maxTokens: number | null;
  /** False when even the newest turn alone is over maxTokens (it is kept). */
  withinBudget: boolean;
  /** Stored messages cut for maxTokens, oldest first, and their estimated tokens. */
  cut: { messages: number; estimatedTokens: number };
  synthetic: SyntheticToolResult[];
  dropped: DroppedMessage[];
  revision: number;
  position: number;
}

/** The answer to a query for one `format`: its `request` has that provider's shape, no cast needed. */
export type ContextWindowAnswer<Format extends ContextWindowFormat = ContextWindowFormat> = Omit<ContextWindowResponse, 'format' | 'request'> & {
  format: Format;
  request: ContextWindowRequests[Format];
};
