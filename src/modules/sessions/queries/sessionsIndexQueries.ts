// Reads of the sessions-index tables: the recent-first listing, lookups by key and id, the whole index.
import { type DataSource, Not, IsNull } from 'typeorm';
import { type BoundConversationEntryRow, ConversationEntryEntity } from '../../../projections/sessionsIndex/conversationEntryRow.js';
import { SessionRecordEntity, type SessionRecordRow } from '../../../projections/sessionsIndex/sessionRecordRow.js';
import type { SessionsCursor } from './sessionsCursor.js';

export interface ListConversationEntriesOptions {
  /** undefined: the default tenant. */
  tenant: string | undefined;
  activeSince?: Date;
  platform?: string;
  limit: number;
  /** Exclusive: entries after this one in the listing order. */
  after?: SessionsCursor;
}

export interface ConversationEntriesPage {
  entries: BoundConversationEntryRow[];
  /** Where the next page starts; null when this page is the last. */
  next: SessionsCursor | null;
}

/** Most recent activity first, ties by session key, so every entry has one place in the order. */
export async function listConversationEntries(readModels: DataSource, options: ListConversationEntriesOptions): Promise<ConversationEntriesPage> {
  const query = readModels
    .getRepository(ConversationEntryEntity)
    .createQueryBuilder('entry')
    .where('entry.tenant = :tenant AND entry.sessionId IS NOT NULL', { tenant: options.tenant ?? '' })
    .orderBy('entry.updatedAt', 'DESC')
    .addOrderBy('entry.sessionKey', 'ASC')
    // One more than asked tells whether another page exists.
    .limit(options.limit + 1);
  if (options.activeSince) query.andWhere('entry.updatedAt >= :activeSince', { activeSince: options.activeSince });
  if (options.platform) query.andWhere('entry.platform = :platform', { platform: options.platform });
  if (options.after) {
    query.andWhere('(entry.updatedAt < :afterUpdatedAt OR (entry.updatedAt = :afterUpdatedAt AND entry.sessionKey > :afterSessionKey))', {
      afterUpdatedAt: options.after.updatedAt,
      afterSessionKey: options.after.sessionKey,
    });
  }
  const rows = (await query.getMany()) as BoundConversationEntryRow[];
  const entries = rows.slice(0, options.limit);
  const last = entries[entries.length - 1];
  return { entries, next: rows.length > options.limit && last ? { updatedAt: last.updatedAt, sessionKey: last.sessionKey } : null };
}

export async function findConversationEntry(readModels: DataSource, sessionKey: string, tenant: string | undefined): Promise<BoundConversationEntryRow | null> {
  const row = await readModels.getRepository(ConversationEntryEntity).findOneBy({ tenant: tenant ?? '', sessionKey, sessionId: Not(IsNull()) });
  return row as BoundConversationEntryRow | null;
}

export async function findSessionRecord(readModels: DataSource, sessionId: string, tenant: string | undefined): Promise<SessionRecordRow | null> {
  return readModels.getRepository(SessionRecordEntity).findOneBy({ tenant: tenant ?? '', sessionId });
}

export async function allConversationEntries(readModels: DataSource, tenant: string | undefined): Promise<BoundConversationEntryRow[]> {
  const rows = await readModels
    .getRepository(ConversationEntryEntity)
    .find({ where: { tenant: tenant ?? '', sessionId: Not(IsNull()) }, order: { sessionKey: 'ASC' } });
  return rows as BoundConversationEntryRow[];
}

/** How many sessions the tenant's index holds (every status, children and forks too), counted up to `atMost`. */
export async function countSessionRecords(readModels: DataSource, tenant: string | undefined, atMost: number): Promise<number> {
  const rows = await readModels
    .getRepository(SessionRecordEntity)
    .createQueryBuilder('record')
    .select('record.sessionId')
    .where('record.tenant = :tenant', { tenant: tenant ?? '' })
    .limit(atMost)
    .getRawMany();
  return rows.length;
}
