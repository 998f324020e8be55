// The item history's part of a session's fold: a count and where it last shrank. The items stay in the log.
import type { SessionItemEvent } from '../../../events/session/sessionEvents.js';
import type { ExistingSession } from './sessionState.js';

export function evolveItemHistory(state: ExistingSession, event: SessionItemEvent): ExistingSession {
  switch (event.type) {
    case 'ItemAppended':
      return { ...state, itemCount: event.data.position + 1, updatedAt: event.data.at };
    case 'ItemPopped':
      return { ...state, itemCount: event.data.position, itemsShrunkAt: state.revision, updatedAt: event.data.at };
    case 'ItemsCleared':
      return { ...state, itemCount: 0, itemsShrunkAt: state.revision, updatedAt: event.data.at };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
