// A call's arguments as the JSON object Anthropic's `input` and Gemini's `args` require, from OpenAI's JSON text.
import type { JsonObject, JsonValue } from '../../../events/eventStore.js';
import type { ToolCall } from './windowHistory.js';

/** The parsed object; text that is not a JSON object (a model's broken JSON, a bare value) is kept under `arguments`. */
export function argumentsObject(call: ToolCall): JsonObject {
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(call.arguments) as JsonValue;
  } catch {
    return { arguments: call.arguments };
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : { arguments: call.arguments };
}
