// Conversation events onto conversation_entries: the flags fold exactly as evolveConversation folds them.
import type { EntityManager } from 'typeorm';
import type { ConversationEvent } from '../../events/conversation/conversationEvents.js';
import { type ConversationState, evolveConversation, initialConversationState } from '../../modules/conversations/conversationDecider.js';
import { ConversationEntryEntity, type ConversationEntryRow } from './conversationEntryRow.js';
import { SessionRecordEntity } from './sessionRecordRow.js';
import { countersOf, type SessionCounterColumns, zeroCounterColumns } from './sessionCounterColumns.js';

export async function projectConversationEvent(tenant: string, sessionKey: string, event: ConversationEvent, manager: EntityManager): Promise<void> {
  const entries = manager.getRepository(ConversationEntryEntity);
  if (event.type === 'ConversationPruned') {
    // The routing entry goes; the session records stay, as the seed's prune keeps the transcripts.
    await entries.delete({ tenant, sessionKey });
    return;
  }
  const existing = await entries.findOneBy({ tenant, sessionKey });
  // Only ConversationOpened starts an entry: the decider writes nothing else for a key without one.
  if (!existing && event.type !== 'ConversationOpened') return;
  const next = evolveConversation(existing ? conversationStateOf(existing) : initialConversationState(), event);
  const row: ConversationEntryRow = { ...entryRowOf(tenant, sessionKey, next), ...(await countersAfter(tenant, event, existing, manager)) };
  await entries.upsert(row, ['tenant', 'sessionKey']);
}

/** A newly bound session shows its own counters: zero when new, its totals so far when switched back to. */
async function countersAfter(tenant: string, event: ConversationEvent, existing: ConversationEntryRow | null, manager: EntityManager): Promise<SessionCounterColumns> {
  if (event.type === 'SessionBound') {
    // The session stream is written just after the conversation stream, so a new session has no record yet.
    const record = await manager.getRepository(SessionRecordEntity).findOneBy({ tenant, sessionId: event.data.sessionId });
    return record ? countersOf(record) : zeroCounterColumns();
  }
  if (event.type === 'ConversationOpened' || !existing) return zeroCounterColumns();
  return countersOf(existing);
}

function conversationStateOf(row: ConversationEntryRow): ConversationState {
  return {
    ...initialConversationState(),
    status: 'open',
    sessionKey: row.sessionKey,
    sessionId: row.sessionId,
    // The history of session ids only guards /resume; the read model does not keep it.
    sessionIds: [],
    createdAt: isoOrNull(row.createdAt),
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
  };
}

/** Every state reached from ConversationOpened has an origin, a gateway and an updatedAt. */
function entryRowOf(tenant: string, sessionKey: string, state: ConversationState): Omit<ConversationEntryRow, keyof SessionCounterColumns> {
  const origin = state.origin!;
  return {
    tenant,
    sessionKey,
    sessionId: state.sessionId,
    createdAt: dateOrNull(state.createdAt),
    updatedAt: new Date(state.updatedAt!),
    origin,
    displayName: state.displayName,
    platform: origin.platform,
    chatType: origin.chatType,
    gatewayId: state.gatewayId!,
    suspended: state.suspended,
    resumePending: state.resumePending,
    resumeReason: state.resumeReason,
    lastResumeMarkedAt: dateOrNull(state.lastResumeMarkedAt),
    wasAutoReset: state.wasAutoReset,
    autoResetReason: state.autoResetReason,
    resetHadActivity: state.resetHadActivity,
    isFreshReset: state.isFreshReset,
  };
}

const isoOrNull = (date: Date | null) => (date === null ? null : date.toISOString());
const dateOrNull = (iso: string | null) => (iso === null ? null : new Date(iso));
