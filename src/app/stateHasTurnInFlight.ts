// The cache never evicts a state with a turn in flight: a runtime session's current turn, or a session's started turn.
import { sessionStreamName } from '../events/session/sessionEvents.js';
import { streamScope } from '../events/streamScope.js';
import { runtimeTurnInFlight } from '../modules/runtime/runtimeTurnInFlight.js';

export function stateHasTurnInFlight(streamName: string, state: unknown): boolean {
  if (runtimeTurnInFlight(streamName, state)) return true;
  return streamScope(streamName).name.startsWith(sessionStreamName('')) && (state as { turnInFlight?: unknown } | null)?.turnInFlight != null;
}
