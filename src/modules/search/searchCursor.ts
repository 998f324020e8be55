// The search's opaque cursor: how many hits (or sessions) earlier pages held.
import { z } from 'zod';
import { opaqueCursorCodec } from '../../http/opaqueCursor.js';

/** Deeper than this a search is better narrowed than paged. */
export const MAX_SEARCH_OFFSET = 10_000;

const searchCursor = opaqueCursorCodec(
  z.strictObject({ offset: z.number().int().min(1).max(MAX_SEARCH_OFFSET) }),
  (offset: number) => ({ offset }),
  (json) => json.offset,
);

export const encodeSearchCursor = (offset: number): string => searchCursor.encode(offset);
export const decodeSearchCursor = (text: string): number => searchCursor.decode(text);
