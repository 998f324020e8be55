// Session events onto the batch's session records, and the counters they move onto the entry that points at the session.
import type { SessionStreamEvent } from '../../events/session/sessionEvents.js';
import { evolveSessionRecord } from './evolveSessionRecord.js';
import { countersOf } from './sessionCounterColumns.js';
import type { SessionsIndexRows } from './sessionsIndexRows.js';

export function projectSessionEvent(tenant: string, sessionId: string, event: SessionStreamEvent, rows: SessionsIndexRows): void {
  const record = evolveSessionRecord(rows.session(tenant, sessionId), event);
  // Only SessionCreated starts a record: the decider writes nothing else for a session without one.
  if (record === null) return;
  rows.setSession({ ...record, tenant });
  // The entry pointing at the session shows its counters: a turn, or a prompt size set without one (Hermes'
  // update_session, which touches the entry), moves them and its activity time; a rollback restores the checkpoint's
  // counters, but a rollback is not activity.
  if (event.type !== 'TurnRecorded' && event.type !== 'LastPromptTokensSet' && event.type !== 'RolledBack') return;
  const moved = { ...countersOf(record), ...(event.type === 'RolledBack' ? {} : { updatedAt: new Date(event.data.at) }) };
  for (const entry of rows.entriesOf(tenant, sessionId)) rows.setEntry({ ...entry, ...moved });
}
