// Answers sized for a model's context window: long texts clipped, lists cut to what fits in a tool's character cap.

/** Longest text kept of one message, item or snippet; the rest is named, not sent. */
export const MAX_FIELD_CHARS = 4_000;

/** A string cut to `max` characters, saying how many were left out; any other JSON value longer than that as JSON becomes such a string. */
export function clipped(value: unknown, max = MAX_FIELD_CHARS): unknown {
  if (typeof value === 'string') return value.length <= max ? value : `${value.slice(0, max)}… [${value.length - max} more characters]`;
  if (value === null || typeof value !== 'object') return value;
  const json = JSON.stringify(value);
  return json.length <= max ? value : `${json.slice(0, max)}… [${json.length - max} more characters of JSON]`;
}

export interface FittedList<T> {
  kept: T[];
  /** How many entries were left out to stay under the cap. */
  omitted: number;
}

/**
 * As many entries of `entries` as fit, with the rest of the answer, in `maxChars` characters of JSON. `keep: 'last'`
 * keeps the newest (a history, oldest first), `'first'` the best (search hits, best first). At least one entry is
 * kept: fields are clipped, so one entry always fits a cap of a few thousand characters.
 */
export function fitList<T>(entries: T[], maxChars: number, answerWith: (kept: T[]) => unknown, keep: 'first' | 'last'): FittedList<T> {
  const slice = (count: number) => (keep === 'first' ? entries.slice(0, count) : entries.slice(entries.length - count));
  const size = (count: number) => JSON.stringify(answerWith(slice(count))).length;
  if (size(entries.length) <= maxChars) return { kept: entries, omitted: 0 };
  // The answer grows with each entry kept: the largest count that fits is found by bisection.
  let fits = Math.min(1, entries.length);
  let tooMany = entries.length;
  while (tooMany - fits > 1) {
    const middle = Math.floor((fits + tooMany) / 2);
    if (size(middle) <= maxChars) fits = middle;
    else tooMany = middle;
  }
  return { kept: slice(fits), omitted: entries.length - fits };
}
