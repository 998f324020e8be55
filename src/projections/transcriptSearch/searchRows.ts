// The transcript search read model: one row per message ever in a session's transcript or item ever in its item history, and one per session.
import { EntitySchema } from 'typeorm';

/** What the projection keeps of a session to place its messages: the transcript's length, and the next row number. */
export interface SearchSessionRow {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  sessionId: string;
  sessionKey: string;
  platform: string;
  /** Messages in the current transcript, soft-deleted ones included: the next message's place in it. */
  transcriptLength: number;
  /** The next message row's number within the session: rows are never renumbered, whatever happens to the timeline. */
  nextSeq: number;
  destroyed: boolean;
}

export const SearchSessionEntity = new EntitySchema<SearchSessionRow>({
  name: 'SearchSessionRow',
  tableName: 'search_sessions',
  columns: {
    tenant: { type: 'text', primary: true },
    sessionId: { name: 'session_id', type: 'text', primary: true },
    sessionKey: { name: 'session_key', type: 'text' },
    platform: { type: 'text' },
    transcriptLength: { name: 'transcript_length', type: 'integer' },
    nextSeq: { name: 'next_seq', type: 'integer' },
    destroyed: { type: 'boolean' },
  },
});

/**
 * A message as the search finds it. `ordinal` is its place in the session's current transcript; null once a rollback
 * left it behind (it is then on an abandoned timeline, and a later message may reuse its index). The `terms`
 * tsvector column is computed by the insert and never read back, so the entity does not name it.
 *
 * An item of the session's item history is a row too, told apart by its `itemId`: its `messageIndex` and `ordinal`
 * are its place in the history, it has no turn and no slot, `deleted` means popped or cleared, and the revisions
 * where it was appended and removed let a rollback put the history back as it was.
 */
export interface SearchMessageRow {
  tenant: string;
  sessionId: string;
  seq: number;
  sessionKey: string;
  platform: string;
  ordinal: number | null;
  messageIndex: number;
  turnIndex: number | null;
  slot: string | null;
  role: string;
  at: Date;
  deleted: boolean;
  sessionDestroyed: boolean;
  body: string;
  itemId: string | null;
  appendedRevision: number | null;
  removedRevision: number | null;
}

export const SearchMessageEntity = new EntitySchema<SearchMessageRow>({
  name: 'SearchMessageRow',
  tableName: 'search_messages',
  columns: {
    tenant: { type: 'text', primary: true },
    sessionId: { name: 'session_id', type: 'text', primary: true },
    seq: { type: 'integer', primary: true },
    sessionKey: { name: 'session_key', type: 'text' },
    platform: { type: 'text' },
    ordinal: { type: 'integer', nullable: true },
    messageIndex: { name: 'message_index', type: 'integer' },
    turnIndex: { name: 'turn_index', type: 'integer', nullable: true },
    slot: { type: 'text', nullable: true },
    role: { type: 'text' },
    at: { type: 'timestamptz' },
    deleted: { type: 'boolean' },
    sessionDestroyed: { name: 'session_destroyed', type: 'boolean' },
    body: { type: 'text' },
    itemId: { name: 'item_id', type: 'text', nullable: true },
    appendedRevision: { name: 'appended_revision', type: 'bigint', nullable: true },
    removedRevision: { name: 'removed_revision', type: 'bigint', nullable: true },
  },
});

/** The words index of search_messages (readModelSchema.ts). */
export const SEARCH_TERMS_INDEX = 'search_messages_terms';

/**
 * The quoted, schema-qualified table name of an entity, for statements TypeORM's builders cannot say; or, given
 * `relation`, the name of another relation in the entity's schema (one of its indexes).
 */
export function qualifiedTable(
  manager: { connection: { getMetadata(target: unknown): { schema?: string; tableName: string }; driver: { escape(name: string): string } } },
  entity: EntitySchema,
  relation?: string,
): string {
  const { schema, tableName } = manager.connection.getMetadata(entity);
  const { driver } = manager.connection;
  const name = driver.escape(relation ?? tableName);
  return schema ? `${driver.escape(schema)}.${name}` : name;
}
