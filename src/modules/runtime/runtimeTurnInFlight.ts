// The cache pinning rule for runtime sessions: a runtime stream with a turn in flight stays in memory.
import { runtimeSessionStreamName } from '../../events/runtime/runtimeSessionEvents.js';
import { streamScope } from '../../events/streamScope.js';
import type { RuntimeSessionState } from './domain/runtimeSessionDecider.js';

const runtimePrefix = runtimeSessionStreamName('rt_');

export function runtimeTurnInFlight(streamName: string, state: unknown): boolean {
  return streamScope(streamName).name.startsWith(runtimePrefix) && (state as RuntimeSessionState | null)?.currentTurnId != null;
}
