// The current session's work in progress, read from its stream and its runtime session's: what a policy reset checks first.
import { runtimeBindingStreamName } from '../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../events/runtime/runtimeSessionEvents.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import type { StreamStateStore } from '../../events/streamStateStore.js';
import { runtimeBindingDecider } from '../runtime/runtimeBindingDecider.js';
import { runtimeSessionDecider } from '../runtime/runtimeSessionDecider.js';
import { sessionDecider } from '../sessions/sessionDecider.js';
import type { SessionWork } from './resetPolicy/policyExpiry.js';

export async function loadSessionWork(streams: StreamStateStore, sessionKey: string, sessionId: string, tenant: string | undefined): Promise<SessionWork> {
  const session = await streams.load(sessionStreamName(sessionId, tenant), sessionDecider);
  const binding = await streams.load(runtimeBindingStreamName(sessionKey, tenant), runtimeBindingDecider);
  let runtimeTurnActive = false;
  if (binding.state.runtimeSessionId !== null) {
    const runtime = await streams.load(runtimeSessionStreamName(binding.state.runtimeSessionId, tenant), runtimeSessionDecider);
    runtimeTurnActive = runtime.state.currentTurnId !== null;
  }
  return {
    sessionId,
    lastEventAt: session.state.updatedAt,
    turnInFlight: session.state.turnInFlight !== null,
    runtimeTurnActive,
    hadActivity: session.state.turnCount > 0,
  };
}
