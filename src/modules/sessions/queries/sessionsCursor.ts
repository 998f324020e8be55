// The listing's opaque cursor: the (updatedAt, sessionKey) of the last entry of a page.
import { z } from 'zod';
import { opaqueCursorCodec } from '../../../http/opaqueCursor.js';
import { isStorableInstant } from '../../../http/storableTimestamp.js';
import { isStorableText } from '../../../http/unsupportedCharacters.js';

export interface SessionsCursor {
  updatedAt: Date;
  sessionKey: string;
}

const sessionsCursor = opaqueCursorCodec(
  // Forged values the database would fail on (a 500) rather than compare: refused.
  z.strictObject({
    updatedAt: z.iso.datetime().refine((text) => isStorableInstant(new Date(text))),
    sessionKey: z.string().min(1).refine(isStorableText),
  }),
  (cursor: SessionsCursor) => ({ updatedAt: cursor.updatedAt.toISOString(), sessionKey: cursor.sessionKey }),
  (json) => ({ updatedAt: new Date(json.updatedAt), sessionKey: json.sessionKey }),
);

export const encodeSessionsCursor = (cursor: SessionsCursor): string => sessionsCursor.encode(cursor);
export const decodeSessionsCursor = (text: string): SessionsCursor => sessionsCursor.decode(text);
