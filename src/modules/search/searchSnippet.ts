// A hit's snippet: the stretch of the message around its first matched word, every matched word marked.

export interface SnippetPart {
  text: string;
  match: boolean;
}

export interface Snippet {
  /** The stretch with each match between `>>>` and `<<<` (the markers of Hermes' session search). */
  text: string;
  /** The same stretch as parts, for a page that renders matches itself (no markup to escape). */
  parts: SnippetPart[];
}

const WINDOW_CHARS = 200;
const CHARS_BEFORE_MATCH = 60;
/** How far a cut may move to land on a space instead of inside a word. */
const WORD_SLACK = 16;
const UNSEGMENTED = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}`;
/** A character that continues a word of a spaced script: the full-text parser does not split there. */
const WORD_CHARACTER = String.raw`[[\p{L}\p{N}\p{M}_]--[${UNSEGMENTED}]]`;

/** Marks `terms` (words, matched whole and ignoring case; runs of unsegmented scripts, matched anywhere) in `body`. */
export function snippetOf(body: string, terms: readonly string[]): Snippet {
  const matches = matchesIn(body, terms);
  const first = matches[0];
  let start = first ? Math.max(0, first.start - CHARS_BEFORE_MATCH) : 0;
  if (start > 0) start = afterSpaceNear(body, start, first!.start);
  let end = Math.min(body.length, start + WINDOW_CHARS);
  if (end < body.length) end = beforeSpaceNear(body, end, first ? first.end : start);
  if (isLowSurrogate(body.charCodeAt(start))) start++;
  if (end < body.length && isLowSurrogate(body.charCodeAt(end))) end--;

  const parts: SnippetPart[] = [];
  const push = (text: string, match: boolean) => {
    const normal = text.replace(/\s+/gu, ' ');
    if (normal.length > 0) parts.push({ text: normal, match });
  };
  if (start > 0) push('…', false);
  let at = start;
  for (const match of matches) {
    if (match.start < at || match.end > end) continue;
    push(body.slice(at, match.start), false);
    push(body.slice(match.start, match.end), true);
    at = match.end;
  }
  push(body.slice(at, end), false);
  if (end < body.length) push('…', false);
  return { text: parts.map((part) => (part.match ? `>>>${part.text}<<<` : part.text)).join(''), parts };
}

function matchesIn(body: string, terms: readonly string[]): Array<{ start: number; end: number }> {
  const unsegmented = new RegExp(`^[${UNSEGMENTED}]+$`, 'v');
  const longestFirst = [...terms].sort((a, b) => b.length - a.length);
  const runs = longestFirst.filter((term) => unsegmented.test(term));
  const words = longestFirst.filter((term) => !unsegmented.test(term));
  const alternatives = [
    ...(runs.length > 0 ? [`(?:${runs.join('|')})`] : []),
    ...(words.length > 0 ? [`(?<!${WORD_CHARACTER})(?:${words.join('|')})(?!${WORD_CHARACTER})`] : []),
  ];
  if (alternatives.length === 0) return [];
  // Terms hold only letters, digits, marks and '_' (see parseSearch): nothing to escape.
  const pattern = new RegExp(alternatives.join('|'), 'giv');
  return [...body.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
}

function afterSpaceNear(body: string, from: number, limit: number): number {
  for (let index = from; index < Math.min(limit, from + WORD_SLACK); index++) if (/\s/u.test(body[index]!)) return index + 1;
  return from;
}

function beforeSpaceNear(body: string, from: number, floor: number): number {
  for (let index = from; index > Math.max(floor, from - WORD_SLACK); index--) if (/\s/u.test(body[index - 1]!)) return index - 1;
  return from;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
