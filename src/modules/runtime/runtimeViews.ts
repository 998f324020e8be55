// What the runtime routes answer: a conversation's binding as CliGate's runtime state machine names it, and one runtime session.
import type { RuntimeBindingState } from './domain/runtimeBindingDecider.js';
import type { RuntimeSessionState, RuntimeStatus } from './domain/runtimeSessionDecider.js';

/** CliGate's conversation ↔ runtime states. */
export type BindingStatus = 'unbound' | 'idle' | 'running' | 'waiting_user' | 'waiting_approval';

export function bindingStatus(binding: RuntimeBindingState, runtime: RuntimeStatus | null): BindingStatus {
  if (binding.runtimeSessionId === null) return 'unbound';
  switch (runtime) {
    case 'starting':
    case 'running':
      return 'running';
    case 'waiting_user':
    case 'waiting_approval':
      return runtime;
    // An interrupted session stays bound: the next message continues it (CliGate's recovery rule).
    default:
      return 'idle';
  }
}

export function runtimeBindingView(sessionKey: string, binding: RuntimeBindingState, runtime: RuntimeSessionState | null) {
  return {
    sessionKey,
    state: bindingStatus(binding, runtime?.status ?? null),
    runtimeSessionId: binding.runtimeSessionId,
    provider: binding.provider,
    model: binding.model,
    reason: binding.reason,
    boundAt: binding.boundAt,
    previousRuntimeSessionId: binding.previousRuntimeSessionId,
    note: binding.lastNote,
    runtime:
      runtime && runtime.status !== 'absent'
        ? {
            state: runtime.status,
            currentTurnId: runtime.currentTurnId,
            turnCount: runtime.turnCount,
            pendingApprovals: runtime.pendingApprovals.length,
            pendingQuestions: runtime.pendingQuestions.length,
            lastError: runtime.lastError,
            interruptRequested: runtime.interruptRequested ?? null,
          }
        : null,
  };
}

export function runtimeSessionView(state: RuntimeSessionState, boundConversations: string[]) {
  return {
    runtimeSessionId: state.runtimeSessionId,
    provider: state.provider,
    model: state.model,
    state: state.status,
    sessionKey: state.sessionKey,
    boundConversations,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    lastWorkerEventAt: state.lastWorkerEventAt,
    currentTurnId: state.currentTurnId,
    turnCount: state.turnCount,
    turns: state.recentTurns,
    lastError: state.lastError,
    interruptRequested: state.interruptRequested ?? null,
    pendingApprovals: state.pendingApprovals,
    pendingQuestions: state.pendingQuestions,
    resolvedApprovals: state.resolvedApprovals,
    answeredQuestions: state.answeredQuestions,
  };
}
