// TranscriptRewound v1 → v2: drop the copy of the rewound message's text, and name the slot on every event.
import { DEFAULT_SLOT } from '../session/sessionEvents.js';
import type { EventUpcaster } from './eventUpcaster.js';

/**
 * v1 carried `targetText`, a copy of the user message rewound to, and no `slot` when written before slots
 * existed. v2 keeps message text in one place only (the turn that recorded it: the message at
 * `fromMessageIndex`), so erasing a person's messages has one fewer copy to find, and always names its slot,
 * so the fold no longer guesses.
 */
export const transcriptRewoundV2: EventUpcaster = {
  type: 'TranscriptRewound',
  fromVersion: 1,
  upcast({ targetText: _copiedText, slot, ...rest }) {
    return { ...rest, slot: typeof slot === 'string' ? slot : DEFAULT_SLOT };
  },
};
