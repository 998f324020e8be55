// A transcript message's content (any JSON: a string, OpenAI/Responses/Anthropic-style parts, Gemini's {parts}) as the
// text and image parts every provider format can carry.
import type { JsonValue } from '../../../events/eventStore.js';

export type ContentPart = { type: 'text'; text: string } | { type: 'image'; url: string };

function imageUrlOf(part: { [key: string]: JsonValue }): string | undefined {
  const url = part.image_url;
  if (typeof url === 'string') return url;
  if (url && typeof url === 'object' && !Array.isArray(url) && typeof url.url === 'string') return url.url;
  return undefined;
}

function partsOfElement(element: JsonValue): ContentPart[] {
  if (element === null) return [];
  if (typeof element === 'string') return [{ type: 'text', text: element }];
  if (typeof element !== 'object') return [{ type: 'text', text: String(element) }];
  if (Array.isArray(element)) return element.flatMap(partsOfElement);
  if (typeof element.text === 'string') return [{ type: 'text', text: element.text }];
  const imageUrl = imageUrlOf(element);
  if (imageUrl !== undefined) return [{ type: 'image', url: imageUrl }];
  if (Array.isArray(element.parts)) return element.parts.flatMap(partsOfElement);
  // A part no provider format has a place for (audio, a file id, a custom block) travels as its JSON text, not lost.
  return [{ type: 'text', text: JSON.stringify(element) }];
}

/** The content's parts, empty text left out (Anthropic and Gemini refuse empty text blocks). */
export function contentParts(content: JsonValue | undefined): ContentPart[] {
  return partsOfElement(content ?? null).filter((part) => part.type !== 'text' || part.text.length > 0);
}

/** Parts where only text may go (system text, assistant turns, tool results): an image becomes a line naming it. */
export function textOnly(parts: ContentPart[]): Array<{ type: 'text'; text: string }> {
  return parts.map((part) => (part.type === 'text' ? part : { type: 'text', text: `[image: ${part.url}]` }));
}

export function joinedText(parts: ContentPart[]): string {
  return textOnly(parts)
    .map((part) => part.text)
    .join('\n');
}

/** A `data:` URL split into its media type and base64 payload (Anthropic's base64 source, Gemini's inlineData). */
export function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}
