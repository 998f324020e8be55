// Transcript search: every message and item of every session as a searchable row, following rewinds, rewrites, pops, clears, rollbacks and destruction.
import type { EntityManager } from 'typeorm';
import type { JsonObject, RecordedEvent } from '../../events/eventStore.js';
import { DEFAULT_SLOT, type SessionStreamEvent, type SessionStreamEventType, sessionStreamName } from '../../events/session/sessionEvents.js';
import type { StoredMessage } from '../../events/session/sessionMessages.js';
import { streamScope } from '../../events/streamScope.js';
import { BatchRows } from '../batchRows.js';
import { type Projection, projectEach } from '../projection.js';
import { SEARCH_TERMS_INDEX, SearchMessageEntity, SearchSessionEntity, type SearchSessionRow, qualifiedTable } from './searchRows.js';
import { keepSearchStatistics } from './searchStatistics.js';
import { itemRole, itemSearchText } from './itemSearchText.js';
import { indexedTermsText, searchableText } from './searchTerms.js';

// A Record, so a new session event type fails the type check until someone decides whether search needs it.
const searchedEventTypes: Record<SessionStreamEventType, boolean> = {
  SessionCreated: true,
  TurnRecorded: true,
  StatusNoted: true,
  TranscriptRewound: true,
  TranscriptRewritten: true,
  RolledBack: true,
  SessionDestroyed: true,
  // Nothing a transcript holds: lifecycle, turns in flight, counters, checkpoints (a position, not a copy), memory, slots.
  SessionEnded: false,
  SessionReopened: false,
  TurnStarted: false,
  TurnAbandoned: false,
  LastPromptTokensSet: false,
  CheckpointCreated: false,
  CheckpointsExpired: false,
  MemoryEntrySet: false,
  MemoryEntryRemoved: false,
  SlotCreated: false,
  SlotSwitched: false,
  ChildSessionCreated: false,
  ItemAppended: true,
  ItemPopped: true,
  ItemsCleared: true,
};

const sessionPrefix = sessionStreamName('');
/** Rows per INSERT; each travels in one JSON parameter, so a batch of long messages is cut by size too. */
const INSERT_ROWS = 1_000;
const INSERT_CHARS = 4_000_000;

interface SearchedEvent {
  tenant: string;
  sessionId: string;
  revision: number;
  event: SessionStreamEvent;
}

function searchedEventOf(event: RecordedEvent): SearchedEvent | null {
  if (searchedEventTypes[event.type as SessionStreamEventType] !== true) return null;
  const { tenant, name } = streamScope(event.streamName);
  if (!name.startsWith(sessionPrefix)) return null;
  return {
    tenant,
    sessionId: name.slice(sessionPrefix.length),
    revision: event.revision,
    event: { type: event.type, data: event.data } as unknown as SessionStreamEvent,
  };
}

export const transcriptSearchProjection: Projection = {
  name: 'transcript-search',
  tables: ['search_sessions', 'search_messages'],
  entities: [SearchSessionEntity, SearchMessageEntity],
  appliesTo: (event) => searchedEventOf(event) !== null,
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const searched = new Map<RecordedEvent, SearchedEvent>();
    for (const event of events) {
      const item = searchedEventOf(event);
      if (item) searched.set(event, item);
    }
    if (searched.size === 0) return;
    const sessions = new BatchRows(SearchSessionEntity, ['tenant', 'sessionId']);
    await sessions.load(
      manager,
      [...searched.values()].map(({ tenant, sessionId }) => ({ tenant, sessionId })),
    );
    const messages = new SearchMessageWriter(manager);
    await projectEach('transcript-search', [...searched.keys()], async (recorded) => {
      await projectSearchEvent(searched.get(recorded)!, sessions, messages);
      await messages.flushWhenFull();
    });
    await messages.flush();
    await sessions.flush(manager);
    await keepSearchStatistics(manager, messages.table, qualifiedTable(manager, SearchMessageEntity, SEARCH_TERMS_INDEX), messages.inserted);
  },
  // A session's rows come from its own stream alone (a fork's copy of its parent's transcript is in its SessionCreated).
  async forgetStreams(streamNames: readonly string[], manager: EntityManager) {
    const sessions = streamNames.flatMap((streamName) => {
      const { tenant, name } = streamScope(streamName);
      return name.startsWith(sessionPrefix) ? [{ tenant, sessionId: name.slice(sessionPrefix.length) }] : [];
    });
    if (sessions.length === 0) return;
    const keys = JSON.stringify(sessions);
    const matching = `(tenant, session_id) IN (SELECT tenant, "sessionId" FROM json_to_recordset($1::json) AS k(tenant text, "sessionId" text))`;
    await manager.query(`DELETE FROM ${qualifiedTable(manager, SearchMessageEntity)} WHERE ${matching}`, [keys]);
    await manager.query(`DELETE FROM ${qualifiedTable(manager, SearchSessionEntity)} WHERE ${matching}`, [keys]);
  },
};

type SessionRows = BatchRows<SearchSessionRow, 'tenant' | 'sessionId'>;

interface PlacedMessage {
  message: StoredMessage;
  slot: string;
  deleted: boolean;
}

async function projectSearchEvent({ tenant, sessionId, revision, event }: SearchedEvent, sessions: SessionRows, messages: SearchMessageWriter) {
  const session = sessions.get({ tenant, sessionId });
  if (event.type === 'SessionCreated') {
    if (session) throw new Error(`search_sessions already has session ${sessionId}: a session is created once`);
    const created: SearchSessionRow = {
      tenant,
      sessionId,
      sessionKey: event.data.sessionKey,
      platform: event.data.origin.platform,
      transcriptLength: 0,
      nextSeq: 0,
      destroyed: false,
    };
    // A fork starts with its parent's transcript, soft-deleted messages and all.
    const starting = (event.data.startingState?.transcript ?? []).map((message) => ({ message, slot: message.slot, deleted: message.deleted }));
    sessions.set(append(created, starting, messages));
    return;
  }
  // The decider writes nothing else for a session that was never created.
  if (!session) return;
  switch (event.type) {
    case 'TurnRecorded': {
      const slot = event.data.slot ?? DEFAULT_SLOT;
      sessions.set(
        append(
          session,
          event.data.messages.map((message) => ({ message, slot, deleted: false })),
          messages,
        ),
      );
      return;
    }
    case 'StatusNoted':
      sessions.set(append(session, [{ message: event.data.message, slot: event.data.slot ?? DEFAULT_SLOT, deleted: false }], messages));
      return;
    case 'TranscriptRewound':
      // As the session's fold does: the current slot's live messages from the target on.
      await messages.update(`deleted = true`, `${TRANSCRIPT} AND ordinal IS NOT NULL AND slot = $3 AND message_index >= $4 AND NOT deleted`, [
        tenant,
        sessionId,
        event.data.slot,
        event.data.fromMessageIndex,
      ]);
      return;
    case 'TranscriptRewritten': {
      const slot = event.data.slot ?? DEFAULT_SLOT;
      await messages.update(`deleted = true`, `${TRANSCRIPT} AND ordinal IS NOT NULL AND slot = $3 AND NOT deleted`, [tenant, sessionId, slot]);
      sessions.set(
        append(
          session,
          event.data.messages.map((message) => ({ message, slot, deleted: false })),
          messages,
        ),
      );
      return;
    }
    case 'RolledBack': {
      // The first `kept` messages stay; the rest leave the current timeline (still findable when asked for), and the
      // restored ones after them join it.
      const { kept, following } = event.data.restored.transcript;
      await messages.update(`ordinal = NULL`, `${TRANSCRIPT} AND ordinal >= $3`, [tenant, sessionId, kept]);
      // The item history as it was at the checkpoint: items appended since leave the timeline, items removed since come back.
      const target = event.data.targetRevision;
      await messages.update(`ordinal = NULL`, `${LIVE_ITEM} AND appended_revision > $3`, [tenant, sessionId, target]);
      await messages.update(`deleted = false, removed_revision = NULL`, `${ITEM} AND ordinal IS NOT NULL AND removed_revision > $3`, [
        tenant,
        sessionId,
        target,
      ]);
      const restored = following.map((message) => ({ message, slot: message.slot, deleted: message.deleted }));
      sessions.set(append({ ...session, transcriptLength: kept }, restored, messages));
      return;
    }
    case 'ItemAppended':
      appendItem(session, revision, event.data, messages);
      sessions.set({ ...session, nextSeq: session.nextSeq + 1 });
      return;
    case 'ItemPopped':
      await messages.update(`deleted = true, removed_revision = $4`, `${LIVE_ITEM} AND NOT deleted AND message_index = $3`, [
        tenant,
        sessionId,
        event.data.position,
        revision,
      ]);
      return;
    case 'ItemsCleared':
      await messages.update(`deleted = true, removed_revision = $3`, `${LIVE_ITEM} AND NOT deleted`, [tenant, sessionId, revision]);
      return;
    case 'SessionDestroyed':
      await messages.update(`session_destroyed = true`, `true`, [tenant, sessionId]);
      sessions.set({ ...session, destroyed: true });
      return;
    default:
      // searchedEventTypes lets no other type through.
      throw new Error(`transcript-search does not fold ${event.type}`);
  }
}

const TRANSCRIPT = 'item_id IS NULL';
const ITEM = 'item_id IS NOT NULL';
const LIVE_ITEM = `${ITEM} AND ordinal IS NOT NULL`;

/** An item as a new row at its place in the history (a fork's inherited items stay rows of the parent's session). */
function appendItem(
  session: SearchSessionRow,
  revision: number,
  { itemId, position, item, at }: { itemId: string; position: number; item: JsonObject; at: string },
  messages: SearchMessageWriter,
): void {
  const body = itemSearchText(item);
  messages.insert({
    ...rowOf(session, session.nextSeq),
    ordinal: position,
    message_index: position,
    turn_index: null,
    slot: null,
    role: itemRole(item),
    at,
    deleted: false,
    body,
    terms_text: indexedTermsText(body),
    item_id: itemId,
    appended_revision: revision,
  });
}

function rowOf(session: SearchSessionRow, seq: number) {
  return {
    tenant: session.tenant,
    session_id: session.sessionId,
    seq,
    session_key: session.sessionKey,
    platform: session.platform,
    session_destroyed: session.destroyed,
  };
}

/** Places messages at the end of the session's current transcript, each as a new row. */
function append(session: SearchSessionRow, placed: readonly PlacedMessage[], messages: SearchMessageWriter): SearchSessionRow {
  placed.forEach(({ message, slot, deleted }, offset) => {
    const body = searchableText(message.content);
    messages.insert({
      ...rowOf(session, session.nextSeq + offset),
      ordinal: session.transcriptLength + offset,
      message_index: message.index,
      turn_index: message.turnIndex,
      slot,
      role: message.role,
      at: message.at,
      deleted,
      body,
      terms_text: indexedTermsText(body),
    });
  });
  return { ...session, transcriptLength: session.transcriptLength + placed.length, nextSeq: session.nextSeq + placed.length };
}

type MessageInsert = Record<string, string | number | boolean | null>;

/**
 * Message rows of a batch: inserts are held and sent many rows to a statement; an update of a session's stored rows
 * first sends what is held, so it sees every message before it in the log.
 */
class SearchMessageWriter {
  private pending: MessageInsert[] = [];
  private pendingChars = 0;
  /** Rows sent so far. */
  inserted = 0;
  readonly table: string;

  constructor(private readonly manager: EntityManager) {
    this.table = qualifiedTable(manager, SearchMessageEntity);
  }

  insert(row: MessageInsert & { body: string }): void {
    this.pending.push(row);
    this.pendingChars += row.body.length;
  }

  /** Sends what is held once a statement's worth has gathered, so a long batch holds little in memory. */
  async flushWhenFull(): Promise<void> {
    if (this.pending.length >= INSERT_ROWS || this.pendingChars >= INSERT_CHARS) await this.flush();
  }

  /** `SET assignments WHERE tenant = $1 AND session_id = $2 AND condition`. */
  async update(assignments: string, condition: string, params: unknown[]): Promise<void> {
    await this.flush();
    await this.manager.query(`UPDATE ${this.table} SET ${assignments} WHERE tenant = $1 AND session_id = $2 AND ${condition}`, params);
  }

  async flush(): Promise<void> {
    while (this.pending.length > 0) {
      let chars = 0;
      let count = 0;
      while (count < this.pending.length && count < INSERT_ROWS && (count === 0 || chars < INSERT_CHARS)) chars += String(this.pending[count++]!.body).length;
      const rows = this.pending.splice(0, count);
      this.inserted += rows.length;
      await this.manager.query(
        `INSERT INTO ${this.table} (tenant, session_id, seq, session_key, platform, ordinal, message_index, turn_index, slot, role, at, deleted, session_destroyed, body, terms,
                item_id, appended_revision)
         SELECT tenant, session_id, seq, session_key, platform, ordinal, message_index, turn_index, slot, role, at, deleted, session_destroyed, body,
                to_tsvector('simple', terms_text), item_id, appended_revision
         FROM json_to_recordset($1::json) AS r(tenant text, session_id text, seq integer, session_key text, platform text, ordinal integer,
              message_index integer, turn_index integer, slot text, role text, at timestamptz, deleted boolean, session_destroyed boolean,
              body text, terms_text text, item_id text, appended_revision bigint)`,
        [JSON.stringify(rows)],
      );
    }
    this.pendingChars = 0;
  }
}
