// The current session's work in progress, read from its stream and its runtime session's: what a policy reset checks first.
import { runtimeBindingStreamName } from '../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../events/runtime/runtimeSessionEvents.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import type { DecisionReads } from '../../events/streamStateStore.js';
import { runtimeBindingDecider } from '../runtime/domain/runtimeBindingDecider.js';
import { runtimeSessionDecider } from '../runtime/domain/runtimeSessionDecider.js';
import { sessionDecider } from '../sessions/domain/sessionDecider.js';
import type { SessionWork } from './resetPolicy/policyExpiry.js';

/**
 * Read through the expiry's DecisionReads: an expiry decided on these streams is appended only while they stand where
 * they were read, so a turn started meanwhile refuses it and the decision is made again on the busy session.
 */
export async function loadSessionWork(reads: DecisionReads, sessionKey: string, sessionId: string, tenant: string | undefined): Promise<SessionWork> {
  const session = await reads.load(sessionStreamName(sessionId, tenant), sessionDecider);
  const binding = await reads.load(runtimeBindingStreamName(sessionKey, tenant), runtimeBindingDecider);
  let runtimeTurnActive = false;
  if (binding.state.runtimeSessionId !== null) {
    const runtime = await reads.load(runtimeSessionStreamName(binding.state.runtimeSessionId, tenant), runtimeSessionDecider);
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
