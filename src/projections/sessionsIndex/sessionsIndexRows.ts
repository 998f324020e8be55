// The sessions index's two tables for the length of a batch: conversation entries and session records, read once,
// folded event by event in memory, written back when the batch is.
import { type EntityManager, In } from 'typeorm';
import { BatchRows } from '../batchRows.js';
import { ConversationEntryEntity, type ConversationEntryRow } from './conversationEntryRow.js';
import { SessionRecordEntity, type SessionRecordRow } from './sessionRecordRow.js';

export interface SessionKeyRef {
  tenant: string;
  sessionKey: string;
}

export interface SessionIdRef {
  tenant: string;
  sessionId: string;
}

const sessionRef = (tenant: string, sessionId: string) => `${tenant}\u0000${sessionId}`;

export class SessionsIndexRows {
  private readonly entries = new BatchRows(ConversationEntryEntity, ['tenant', 'sessionKey']);
  private readonly records = new BatchRows(SessionRecordEntity, ['tenant', 'sessionId']);
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

  /** The session's record as the batch has it so far; null before its SessionCreated. */
  session(tenant: string, sessionId: string): SessionRecordRow | null {
    return this.records.get({ tenant, sessionId });
  }

  setSession(row: SessionRecordRow): void {
    this.records.set(row);
  }

  async flush(manager: EntityManager): Promise<void> {
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
