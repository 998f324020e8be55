// How a session's folded state is shown: the summary, the timeline (what a checkpoint captures), the state at a point in time.
import { toArray } from './domain/chunkedList.js';
import { hermesEndReason } from './domain/hermesEndReasons.js';
import type { SessionState } from './domain/sessionState.js';

/** The summary of GET /v1/sessions/{id}: everything but the transcript, memory and checkpoint lists. */
export function sessionSummary(state: SessionState, revision: number, position: number) {
  return {
    status: state.status,
    sessionId: state.sessionId,
    sessionKey: state.sessionKey,
    origin: state.origin,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    endedAt: state.endedAt,
    endReason: state.endReason,
    /** The same reason in Hermes' name (`session_reset`, `session_switch`, `resume_pending_expired`, …). */
    hermesEndReason: hermesEndReason(state.endReason),
    turnCount: state.turnCount,
    counters: state.counters,
    messageCount: liveMessageCount(state),
    /** Items in the session's item history (GET /v1/sessions/{id}/items). */
    itemCount: state.itemCount,
    parentSessionId: state.parentSessionId,
    agentName: state.agentName,
    metadata: state.metadata,
    forkOf: state.forkOf,
    currentSlot: state.currentSlot,
    lastSummaryTurn: state.lastSummaryTurn,
    turnInFlight: state.turnInFlight,
    lastAbandonedTurn: state.lastAbandonedTurn,
    destroyedAt: state.destroyedAt,
    revision,
    position,
  };
}

export function liveMessageCount(state: SessionState): number {
  return state.transcript.reduce((count, chunk) => count + chunk.filter((message) => !message.deleted).length, 0);
}

export function slotsView(state: SessionState) {
  const live = new Map<string, number>();
  for (const chunk of state.transcript) for (const message of chunk) if (!message.deleted) live.set(message.slot, (live.get(message.slot) ?? 0) + 1);
  return state.slots.map((slot) => ({
    name: slot.name,
    createdAt: slot.createdAt,
    messageCount: live.get(slot.name) ?? 0,
    current: slot.name === state.currentSlot,
  }));
}

/** Exactly what a checkpoint captures and a rollback restores: equal states show byte-for-byte equal views. */
export function timelineView(state: SessionState) {
  return {
    turnIndex: state.turnCount,
    counters: state.counters,
    transcript: toArray(state.transcript),
    memory: state.memory,
    currentSlot: state.currentSlot,
    slots: slotsView(state),
    lastSummaryTurn: state.lastSummaryTurn,
    checkpointId: state.headCheckpointId,
    nextMessageIndex: state.nextMessageIndex,
    /** Items in the item history then (GET /v1/sessions/{id}/items?revision=N reads them). */
    itemCount: state.itemCount,
  };
}

/** GET /v1/sessions/{id}/state and the ledger CLI: the session as of a revision, with its timeline under `state`. */
export function sessionStateView(state: SessionState, at: { revision: number; position: number; lastEventAt?: Date | null }) {
  return {
    sessionId: state.sessionId,
    revision: at.revision,
    position: at.position,
    ...(at.lastEventAt === undefined ? {} : { lastEventAt: at.lastEventAt?.toISOString() ?? null }),
    status: state.status,
    sessionKey: state.sessionKey,
    parentSessionId: state.parentSessionId,
    agentName: state.agentName,
    forkOf: state.forkOf,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    endedAt: state.endedAt,
    destroyedAt: state.destroyedAt,
    turnInFlight: state.turnInFlight,
    lastAbandonedTurn: state.lastAbandonedTurn,
    state: timelineView(state),
  };
}
