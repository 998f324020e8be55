// RollBack as a route asks for it: the checkpoint's state, replayed from the stream at each attempt.
import type { Attempt } from '../../../events/attemptCommand.js';
import type { StreamStateStore } from '../../../events/streamStateStore.js';
import { type ExistingSession, rollbackTarget, sessionDecider } from '../domain/sessionDecider.js';
import type { RollBack } from '../domain/decide/rollBack.js';

/**
 * The state at the checkpoint is a replay of the stream up to it; history is only ever read, never rewritten. Given
 * the current state, a recent checkpoint's is one this process folded on the way, no snapshot or replay.
 */
export function rollBackCommand(streams: StreamStateStore, checkpointId: string) {
  return async ({ now, streamName, state }: Attempt<ExistingSession>): Promise<RollBack> => {
    const checkpoint = rollbackTarget(state, checkpointId);
    const then = await streams.loadAt(streamName, sessionDecider, { revision: checkpoint.revision }, state);
    return { type: 'RollBack', checkpointId: checkpoint.checkpointId, restored: then.state, now };
  };
}
