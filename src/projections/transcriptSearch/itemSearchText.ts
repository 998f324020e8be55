// What of an item (any JSON object) the search index reads: the text and the role the agent frameworks' shapes put where.
import type { JsonObject, JsonValue } from '../../events/eventStore.js';
import { searchableText } from './searchTerms.js';

/**
 * The members an item's text is read from, in order: `content` (a string, a list of parts with `text`, or Gemini's and
 * ADK's `{parts: [{text}]}`), `text`, `output` (a tool's result in the OpenAI Responses shape), and the same inside
 * `message` (Claude Code transcript entries). Nothing else is read: ids, arguments and metadata are not prose.
 */
export function itemSearchText(item: JsonObject): string {
  const texts = [...textsOf(item), ...(isObject(item.message) ? textsOf(item.message) : [])];
  return searchableText(texts.filter((text) => text !== ''));
}

/**
 * The role a search filters an item by: its `role`, else its content's (`user`/`model` in Gemini's shape), else its
 * message's, else its `type` (`function_call`, `reasoning`, Claude Code's `user`/`assistant`); '' when it has none.
 */
export function itemRole(item: JsonObject): string {
  const candidates = [item.role, isObject(item.content) ? item.content.role : undefined, isObject(item.message) ? item.message.role : undefined, item.type];
  const role = candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate !== '');
  return role?.slice(0, 64) ?? '';
}

function textsOf(value: JsonObject): string[] {
  const content = isObject(value.content) && Array.isArray(value.content.parts) ? value.content.parts : value.content;
  return [content, value.text, value.output].map((member) => (member === undefined ? '' : searchableText(member)));
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
