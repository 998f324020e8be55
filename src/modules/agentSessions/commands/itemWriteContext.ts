// What the item and agent-session writes need, and the loop that decides them again when another writer came first.
import { ConflictError } from '../../../errors/ledgerError.js';
import type { EventStore } from '../../../events/eventStore.js';
import { DuplicateEventIdError, WrongExpectedRevisionError } from '../../../events/eventStoreErrors.js';
import type { SessionStreamEvent } from '../../../events/session/sessionEvents.js';
import type { StreamStateStore } from '../../../events/streamStateStore.js';
import type { CommandContext } from '../../commandContext.js';
import { sessionDecider } from '../../sessions/domain/sessionDecider.js';
import type { SessionState } from '../../sessions/domain/sessionState.js';

export interface ItemWriteContext {
  streams: StreamStateStore;
  /** The log itself, for what the session's fold does not keep: the items, read backwards, and found by id. */
  store: EventStore;
  now(): string;
}

/** The context a controller hands its writes: the request's stores and clock. */
export function itemWriteContextOf(commandContext: CommandContext, store: EventStore): ItemWriteContext {
  return { streams: commandContext.streams, store, now: () => commandContext.now() };
}

/** The session decider deciding one command: what a route hands to `handle` (the fold, snapshots and restore points stay the decider's). */
export function sessionDecision<Command>(decide: (command: Command, state: SessionState) => SessionStreamEvent[]) {
  return { ...sessionDecider, decide };
}

const MAX_ATTEMPTS = 20;

/**
 * Runs `attempt` until it answers. It answers undefined, or its append is refused (another writer moved the stream,
 * or stored one of its ids first), when it must be decided again on the stream as it is now: so concurrent appenders
 * are ordered by the store, each deciding on what the other wrote, and nothing is half-written.
 */
export async function decideUntilWritten<Result>(attempt: () => Promise<Result | undefined>): Promise<Result> {
  for (let round = 0; round < MAX_ATTEMPTS; round++) {
    try {
      const result = await attempt();
      if (result !== undefined) return result;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError || error instanceof DuplicateEventIdError) || round === MAX_ATTEMPTS - 1) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** round)));
  }
  throw new ConflictError('ITEM_HISTORY_CONTENDED', `the session's stream moved under ${MAX_ATTEMPTS} attempts in a row; try again`);
}
