// A stream's folded state as of a revision or a time, by replay: shared by the state route and the ledger CLI.
import { NotFoundError } from '../../errors/ledgerError.js';
import type { Decider } from '../../events/decider.js';
import type { HistoricState, HistoryBound, StreamStateStore } from '../../events/streamStateStore.js';

/** `notFound` answers for a stream that does not exist, or did not yet at `bound.at`. */
export async function stateAsOf<State, Command, Event extends { type: string; data: object }>(
  streams: StreamStateStore,
  streamName: string,
  decider: Decider<State, Command, Event>,
  bound: HistoryBound,
  notFound: () => Error,
): Promise<HistoricState<State>> {
  const then = await streams.loadAt(streamName, decider, bound);
  if (then.source === 'cold') throw notFound();
  if ('revision' in bound && then.revision < bound.revision) {
    throw new NotFoundError('REVISION_NOT_FOUND', `${streamName} has no revision ${bound.revision}; its last is ${then.revision}`, {
      streamName,
      revision: then.revision,
    });
  }
  return then;
}
