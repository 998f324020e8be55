// Conversation events onto the batch's conversation entries (evolveConversationEntry), with the counters of the session
// each entry points at.
import type { ConversationEvent } from '../../events/conversation/conversationEvents.js';
import type { ConversationEntryRow } from './conversationEntryRow.js';
import { evolveConversationEntry } from './evolveConversationEntry.js';
import { countersOf, type SessionCounterColumns, zeroCounterColumns } from './sessionCounterColumns.js';
import type { SessionsIndexRows } from './sessionsIndexRows.js';

export function projectConversationEvent(tenant: string, sessionKey: string, event: ConversationEvent, rows: SessionsIndexRows): void {
  const existing = rows.entry({ tenant, sessionKey });
  const entry = evolveConversationEntry(existing, event);
  if (entry === null) {
    // Pruned: the session records stay, as Hermes' prune keeps the transcripts.
    if (existing) rows.removeEntry({ tenant, sessionKey });
    return;
  }
  rows.setEntry({ ...entry, tenant, ...countersAfter(tenant, event, existing, rows) });
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
