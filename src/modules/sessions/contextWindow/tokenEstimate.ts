// The documented token estimate of a window: providers tokenize differently, so the cut uses one rule for all formats.
import type { WindowEntry, WindowUnit } from './windowHistory.js';

/** Per message: its role, separators and framing, which every provider adds around the content. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Per image: providers count images by size, which a URL does not say; this is a typical low-detail figure. */
export const IMAGE_TOKENS = 1_000;

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/** ceil(UTF-8 bytes of the text, tool names, call ids and arguments / 4) + 4, plus 1,000 per image. */
export function estimatedEntryTokens(entry: WindowEntry): number {
  let textBytes = 0;
  let images = 0;
  if (entry.kind === 'toolResult') textBytes += bytes(entry.text) + bytes(entry.call.id);
  else
    for (const part of entry.parts) {
      if (part.type === 'text') textBytes += bytes(part.text);
      else images += 1;
    }
  if (entry.kind === 'assistant') for (const call of entry.toolCalls) textBytes += bytes(call.id) + bytes(call.name) + bytes(call.arguments);
  return Math.ceil(textBytes / 4) + MESSAGE_OVERHEAD_TOKENS + images * IMAGE_TOKENS;
}

export function estimatedUnitTokens(unit: WindowUnit): number {
  return unit.entries.reduce((sum, entry) => sum + estimatedEntryTokens(entry), 0);
}
