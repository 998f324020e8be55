// What of a message the search index reads, and how unsegmented scripts (Chinese, Japanese, Thai…) become words.
import type { JsonValue } from '../../events/eventStore.js';

/**
 * Characters of a message indexed and kept for snippets. A tsvector holds less than 1 MB and positions up to 16,383,
 * and a tool's output can be megabytes: past this the message is still in its transcript, just not searchable.
 */
export const MAX_INDEXED_CHARS = 32_768;

/** Scripts written without spaces between words: the full-text parser would read a whole sentence as one word. */
const UNSEGMENTED_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;

/** The text a message is found by: its content's text (plain, or the text parts of a multi-part content). */
export function searchableText(content: JsonValue): string {
  const parts: string[] = [];
  collectText(content, parts, 0);
  // PostgreSQL's text cannot hold NUL.
  const text = parts.join('\n').replaceAll('\u0000', '').slice(0, MAX_INDEXED_CHARS);
  // A cut between the two halves of a surrogate pair would leave half a character, which PostgreSQL's JSON refuses.
  return /[\ud800-\udbff]$/.test(text) ? text.slice(0, -1) : text;
}

function collectText(value: JsonValue, parts: string[], depth: number): void {
  if (typeof value === 'string') parts.push(value);
  else if (Array.isArray(value) && depth === 0) for (const part of value) collectText(part, parts, depth + 1);
  else if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.text === 'string') parts.push(value.text);
}

/**
 * The text handed to `to_tsvector`: each run of an unsegmented script replaced by its overlapping two-character
 * pairs (决定使用 → 决定 定使 使用), so any word of two or more characters is found through the index, whatever
 * it is. A trigram index cannot do this: a two-character pattern has no trigram to look up. The same function
 * rewrites the words of a query, so both sides agree.
 */
export function indexedTermsText(text: string): string {
  return text.replace(UNSEGMENTED_RUN, (run) => ` ${pairsOf(run).join(' ')} `);
}

/** Runs of unsegmented scripts set apart from the words around them, whole (for marking matches). */
export function unsegmentedRunsApart(text: string): string {
  return text.replace(UNSEGMENTED_RUN, (run) => ` ${run} `);
}

const UNSEGMENTED = new RegExp(UNSEGMENTED_RUN.source, 'u');

export function hasUnsegmentedText(text: string): boolean {
  return UNSEGMENTED.test(text);
}

function pairsOf(run: string): string[] {
  const characters = [...run];
  if (characters.length === 1) return characters;
  const pairs: string[] = [];
  for (let index = 0; index + 1 < characters.length; index++) pairs.push(characters[index]! + characters[index + 1]!);
  return pairs;
}
