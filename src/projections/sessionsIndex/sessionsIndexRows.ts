// The sessions index's two tables for the length of a batch: conversation entries, and sessions kept as folded
// states (turned into session_records rows once, when the batch is written) so a batch folds each event once.
import { type EntityManager, In } from 'typeorm';
import type { ExistingSession } from '../../modules/sessions/domain/sessionDecider.js';
import { BatchRows } from '../batchRows.js';
import { ConversationEntryEntity, type ConversationEntryRow } from './conversationEntryRow.js';
import { recordRowOf, sessionStateOf } from './sessionRecordState.js';
import { SessionRecordEntity } from './sessionRecordRow.js';

export interface SessionKeyRef {
  tenant: string;
  sessionKey: string;
}

export interface SessionIdRef {
  tenant: string;
  sessionId: string;
}

/** A session as the index folds it: its state (without transcript) and its live message count. */
export interface IndexedSession {
  state: ExistingSession;
  messageCount: number;
}

const sessionRef = (tenant: string, sessionId: string) => `${tenant}\u0000${sessionId}`;

export class SessionsIndexRows {
  private readonly entries = new BatchRows(ConversationEntryEntity, ['tenant', 'sessionKey']);
  private readonly records = new BatchRows(SessionRecordEntity, ['tenant', 'sessionId']);
  /** Sessions this batch has read or moved; null: no record. */
  private readonly sessions = new Map<string, IndexedSession | null>();
  private readonly movedSessions = new Map<string, SessionIdRef>();
  /** Which entries point at a session, for the counters a session's turn moves onto its entry. */
  private readonly entryKeysBySession = new Map<string, Set<string>>();

  /** The entries of these keys, the records of these sessions, and the entries pointing at them (their counters follow). */
  async load(manager: EntityManager, keys: readonly SessionKeyRef[], sessions: readonly SessionIdRef[]): Promise<void> {
    await this.entries.load(manager, keys);
    const idsByTenant = new Map<string, Set<string>>();
    for (const { tenant, sessionId } of sessions) idsByTenant.set(tenant, (idsByTenant.get(tenant) ?? new Set()).add(sessionId));
    await this.entries.loadWhere(
      manager,
      [...idsByTenant].map(([tenant, ids]) => ({ tenant, sessionId: In([...ids]) })),
    );
    await this.records.load(manager, sessions);
    for (const entry of this.entries.present()) this.indexEntry(entry);
  }

  entry(key: SessionKeyRef): ConversationEntryRow | null {
    return this.entries.get(key);
  }

  setEntry(row: ConversationEntryRow): void {
    this.unindexEntry(row);
    this.entries.set(row);
    this.indexEntry(row);
  }

  removeEntry(key: SessionKeyRef): void {
    this.unindexEntry(key);
    this.entries.remove(key);
  }

  /** Entries whose current session is this one: usually one, none for children and forks. */
  entriesOf(tenant: string, sessionId: string): ConversationEntryRow[] {
    const keys = this.entryKeysBySession.get(sessionRef(tenant, sessionId));
    return keys ? [...keys].map((sessionKey) => this.entries.get({ tenant, sessionKey })!) : [];
  }

  session(tenant: string, sessionId: string): IndexedSession | null {
    const ref = sessionRef(tenant, sessionId);
    let session = this.sessions.get(ref);
    if (session === undefined) {
      const record = this.records.get({ tenant, sessionId });
      session = record ? { state: sessionStateOf(record), messageCount: record.messageCount } : null;
      this.sessions.set(ref, session);
    }
    return session;
  }

  setSession(tenant: string, sessionId: string, session: IndexedSession): void {
    const ref = sessionRef(tenant, sessionId);
    this.sessions.set(ref, session);
    this.movedSessions.set(ref, { tenant, sessionId });
  }

  async flush(manager: EntityManager): Promise<void> {
    for (const [ref, { tenant, sessionId }] of this.movedSessions) {
      const { state, messageCount } = this.sessions.get(ref)!;
      this.records.set({ ...recordRowOf(tenant, sessionId, state), messageCount });
    }
    this.movedSessions.clear();
    await this.entries.flush(manager);
    await this.records.flush(manager);
  }

  private indexEntry(entry: ConversationEntryRow): void {
    if (entry.sessionId === null) return;
    const ref = sessionRef(entry.tenant, entry.sessionId);
    let keys = this.entryKeysBySession.get(ref);
    if (!keys) this.entryKeysBySession.set(ref, (keys = new Set()));
    keys.add(entry.sessionKey);
  }

  private unindexEntry(key: SessionKeyRef): void {
    const previous = this.entries.get(key);
    if (previous?.sessionId) this.entryKeysBySession.get(sessionRef(previous.tenant, previous.sessionId))?.delete(previous.sessionKey);
  }
}
