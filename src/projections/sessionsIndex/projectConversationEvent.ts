// Conversation events onto the batch's conversation entries: the flags fold exactly as evolveConversation folds them.
import type { ConversationEvent } from '../../events/conversation/conversationEvents.js';
import { evolveConversation, initialConversationState, type OpenConversation } from '../../modules/conversations/domain/conversationDecider.js';
import type { ConversationEntryRow } from './conversationEntryRow.js';
import { countersOf, type SessionCounterColumns, zeroCounterColumns } from './sessionCounterColumns.js';
import type { SessionsIndexRows } from './sessionsIndexRows.js';

export function projectConversationEvent(tenant: string, sessionKey: string, event: ConversationEvent, rows: SessionsIndexRows): void {
  if (event.type === 'ConversationPruned') {
    // The routing entry goes; the session records stay, as Hermes' prune keeps the transcripts.
    rows.removeEntry({ tenant, sessionKey });
    return;
  }
  const existing = rows.entry({ tenant, sessionKey });
  const next = evolveConversation(existing ? conversationStateOf(existing) : initialConversationState(), event);
  // Only ConversationOpened starts an entry: the decider writes nothing else for a key without one.
  if (next.status === 'absent') return;
  rows.setEntry({ ...entryRowOf(tenant, sessionKey, next), ...countersAfter(tenant, event, existing, rows) });
}

/** A newly bound session shows its own counters: zero when new, its totals so far when switched back to. */
function countersAfter(tenant: string, event: ConversationEvent, existing: ConversationEntryRow | null, rows: SessionsIndexRows): SessionCounterColumns {
  if (event.type === 'SessionBound') {
    // The session stream is written just after the conversation stream, so a new session has no record yet.
    const session = rows.session(tenant, event.data.sessionId);
    return session ? countersOf(session) : zeroCounterColumns();
  }
  if (event.type === 'ConversationOpened' || !existing) return zeroCounterColumns();
  return countersOf(existing);
}

function conversationStateOf(row: ConversationEntryRow): OpenConversation {
  const opened = {
    ...initialConversationState(),
    status: 'open' as const,
    sessionKey: row.sessionKey,
    // The history of session ids only guards /resume; the read model does not keep it.
    sessionIds: [],
    updatedAt: row.updatedAt.toISOString(),
    origin: row.origin,
    displayName: row.displayName,
    gatewayId: row.gatewayId,
    suspended: row.suspended,
    resumePending: row.resumePending,
    resumeReason: row.resumeReason,
    lastResumeMarkedAt: isoOrNull(row.lastResumeMarkedAt),
    wasAutoReset: row.wasAutoReset,
    autoResetReason: row.autoResetReason,
    resetHadActivity: row.resetHadActivity,
    isFreshReset: row.isFreshReset,
    carried: row.carried,
    resetPolicy: row.resetPolicy,
    expired: row.expired ?? null,
  };
  if (row.sessionId === null) return { ...opened, sessionId: null, createdAt: isoOrNull(row.createdAt) };
  // SessionBound sets both, and entryRowOf writes both.
  if (row.createdAt === null) throw new Error(`the entry of ${row.sessionKey} has session ${row.sessionId} but no time it was bound`);
  return { ...opened, sessionId: row.sessionId, createdAt: row.createdAt.toISOString() };
}

function entryRowOf(tenant: string, sessionKey: string, state: OpenConversation): Omit<ConversationEntryRow, keyof SessionCounterColumns> {
  const { origin } = state;
  return {
    tenant,
    sessionKey,
    sessionId: state.sessionId,
    createdAt: dateOrNull(state.createdAt),
    updatedAt: new Date(state.updatedAt),
    origin,
    displayName: state.displayName,
    platform: origin.platform,
    chatType: origin.chatType,
    gatewayId: state.gatewayId,
    suspended: state.suspended,
    resumePending: state.resumePending,
    resumeReason: state.resumeReason,
    lastResumeMarkedAt: dateOrNull(state.lastResumeMarkedAt),
    wasAutoReset: state.wasAutoReset,
    autoResetReason: state.autoResetReason,
    resetHadActivity: state.resetHadActivity,
    isFreshReset: state.isFreshReset,
    carried: state.carried,
    resetPolicy: state.resetPolicy,
    expired: state.expired,
  };
}

const isoOrNull = (date: Date | null) => (date === null ? null : date.toISOString());
const dateOrNull = (iso: string | null) => (iso === null ? null : new Date(iso));
