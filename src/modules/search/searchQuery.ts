// A search as a person types it (words, "quoted phrases", -excluded, OR), made ready for websearch_to_tsquery.
import { ValidationError } from '../../errors/ledgerError.js';
import { hasUnsegmentedText, indexedTermsText, unsegmentedRunsApart } from '../../projections/transcriptSearch/searchTerms.js';

export interface ParsedSearch {
  /** The query for `websearch_to_tsquery('simple', …)`, its unsegmented words rewritten as the index stores them. */
  websearch: string;
  /** What a snippet marks: the words and unsegmented runs of every term not excluded. */
  markedTerms: string[];
}

interface QueryTerm {
  text: string;
  quoted: boolean;
  excluded: boolean;
}

const WORD_OR_RUN = /[\p{L}\p{N}\p{M}_]+/gu;

export function parseSearch(query: string): ParsedSearch {
  const terms = termsOf(query);
  const wanted = terms.filter((term) => !term.excluded && !isOr(term));
  const markedTerms = [...new Set(wanted.flatMap((term) => markableParts(term.text)))];
  // A query of exclusions alone would have to read every message to answer.
  if (markedTerms.length === 0)
    throw new ValidationError('the search names no word to find (only punctuation or excluded words)', { q: query }, 'SEARCH_QUERY_HAS_NO_TERMS');
  return { websearch: terms.map(websearchTerm).join(' '), markedTerms };
}

function termsOf(query: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  let index = 0;
  while (index < query.length) {
    const char = query[index]!;
    if (/\s/u.test(char)) {
      index++;
      continue;
    }
    const excluded = char === '-' && index + 1 < query.length && !/\s/u.test(query[index + 1]!);
    const start = excluded ? index + 1 : index;
    if (query[start] === '"') {
      const close = query.indexOf('"', start + 1);
      const end = close < 0 ? query.length : close;
      terms.push({ text: query.slice(start + 1, end), quoted: true, excluded });
      index = end + 1;
      continue;
    }
    let end = start;
    while (end < query.length && !/\s/u.test(query[end]!) && query[end] !== '"') end++;
    terms.push({ text: query.slice(start, end), quoted: false, excluded });
    index = end;
  }
  return terms.filter((term) => term.text.trim().length > 0);
}

const isOr = (term: QueryTerm) => !term.quoted && !term.excluded && term.text.toLowerCase() === 'or';

/** A word of an unsegmented script becomes the phrase of its pairs, as the index holds it. */
function websearchTerm(term: QueryTerm): string {
  if (isOr(term)) return 'OR';
  const sign = term.excluded ? '-' : '';
  if (!term.quoted && !hasUnsegmentedText(term.text)) return `${sign}${term.text}`;
  const words = indexedTermsText(term.text).trim().split(/\s+/u).join(' ');
  return `${sign}"${words}"`;
}

function markableParts(text: string): string[] {
  return [...text.matchAll(WORD_OR_RUN)].flatMap(([part]) => splitScripts(part)).filter((part) => part.length > 0);
}

/** A word mixing scripts (使用PostgreSQL) is marked as its pieces, as the index splits it. */
function splitScripts(word: string): string[] {
  return unsegmentedRunsApart(word)
    .split(/\s+/u)
    .filter((piece) => piece.length > 0)
    .map((piece) => (hasUnsegmentedText(piece) ? piece : piece.toLowerCase()));
}
