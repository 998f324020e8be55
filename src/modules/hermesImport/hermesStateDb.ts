// Hermes' state.db (SQLite, read with sql.js: no native module) and its write-ahead log: the `sessions` and `messages`
// tables, whatever the schema version.
import { readFile } from 'node:fs/promises';
import initSqlJs, { type Database, type SqlValue } from 'sql.js';
import { ValidationError } from '../../errors/ledgerError.js';
import { applyWal } from './sqliteWal.js';

export interface HermesSessionRow {
  id: string;
  source: string | null;
  userId: string | null;
  sessionKey: string | null;
  chatId: string | null;
  chatType: string | null;
  threadId: string | null;
  displayName: string | null;
  originJson: string | null;
  model: string | null;
  parentSessionId: string | null;
  /** Seconds since the epoch, as Hermes stores them. */
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  estimatedCostUsd: number;
  title: string | null;
}

export interface HermesMessageRow {
  id: number;
  sessionId: string;
  role: string;
  content: string | null;
  toolCallId: string | null;
  toolCalls: string | null;
  toolName: string | null;
  timestamp: number;
  tokenCount: number | null;
  finishReason: string | null;
  /** 0: rewound away (soft-deleted) in Hermes. Older schemas have no such column: every message counts. */
  active: boolean;
}

export interface HermesStateDb {
  sessions: HermesSessionRow[];
  /** Per session id, in Hermes' order (timestamp, then id). */
  messages: Map<string, HermesMessageRow[]>;
}

const text = (value: SqlValue | undefined) => (value === null || value === undefined ? null : String(value));
const number = (value: SqlValue | undefined, fallback: number) =>
  typeof value === 'number' ? value : typeof value === 'string' && value !== '' && !Number.isNaN(Number(value)) ? Number(value) : fallback;

/** Selects the wanted columns the table has; the rest read as null. Newer and older Hermes schemas both load. */
function selectPresent(database: Database, table: string, wanted: readonly string[], orderBy: string): Array<Record<string, SqlValue>> {
  const present = new Set(database.exec(`PRAGMA table_info(${table})`)[0]?.values.map((row) => String(row[1])) ?? []);
  if (present.size === 0) throw new ValidationError(`state.db has no ${table} table`, { table }, 'INVALID_HERMES_EXPORT');
  const columns = wanted.filter((column) => present.has(column));
  const statement = database.prepare(`SELECT ${columns.map((column) => `"${column}"`).join(', ')} FROM ${table} ORDER BY ${orderBy}`);
  const rows: Array<Record<string, SqlValue>> = [];
  try {
    while (statement.step()) rows.push(statement.getAsObject());
  } finally {
    statement.free();
  }
  return rows;
}

const SESSION_COLUMNS = [
  'id',
  'source',
  'user_id',
  'session_key',
  'chat_id',
  'chat_type',
  'thread_id',
  'display_name',
  'origin_json',
  'model',
  'parent_session_id',
  'started_at',
  'ended_at',
  'end_reason',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'estimated_cost_usd',
  'title',
] as const;
const MESSAGE_COLUMNS = [
  'id',
  'session_id',
  'role',
  'content',
  'tool_call_id',
  'tool_calls',
  'tool_name',
  'timestamp',
  'token_count',
  'finish_reason',
  'active',
] as const;

/** state.db's bytes with its write-ahead log (state.db-wal, when there is one) applied, as SQLite itself would read them. */
async function readWithWal(path: string, walPath: string | null): Promise<Buffer> {
  const main = await readFile(path);
  if (!walPath) return main;
  try {
    return applyWal(main, await readFile(walPath)).database;
  } catch (error) {
    throw new ValidationError(
      `${walPath}: ${(error as Error).message}. Checkpoint it into state.db first (stop the Hermes gateway, or run sqlite3 state.db 'PRAGMA wal_checkpoint(TRUNCATE)'), then import again`,
      { path: walPath },
      'INVALID_HERMES_EXPORT',
    );
  }
}

export async function readHermesStateDb(path: string, walPath: string | null = null): Promise<HermesStateDb> {
  const SQL = await initSqlJs();
  let database: Database;
  const bytes = await readWithWal(path, walPath);
  try {
    database = new SQL.Database(bytes);
    database.exec('SELECT count(*) FROM sqlite_master');
  } catch (error) {
    throw new ValidationError(`${path} is not a SQLite database: ${(error as Error).message}`, { path }, 'INVALID_HERMES_EXPORT');
  }
  try {
    const sessions = selectPresent(database, 'sessions', SESSION_COLUMNS, 'started_at, id').map((row): HermesSessionRow => ({
      id: String(row.id),
      source: text(row.source),
      userId: text(row.user_id),
      sessionKey: text(row.session_key),
      chatId: text(row.chat_id),
      chatType: text(row.chat_type),
      threadId: text(row.thread_id),
      displayName: text(row.display_name),
      originJson: text(row.origin_json),
      model: text(row.model),
      parentSessionId: text(row.parent_session_id),
      startedAt: number(row.started_at, 0),
      endedAt: row.ended_at === null || row.ended_at === undefined ? null : number(row.ended_at, 0),
      endReason: text(row.end_reason),
      inputTokens: number(row.input_tokens, 0),
      outputTokens: number(row.output_tokens, 0),
      cacheReadTokens: number(row.cache_read_tokens, 0),
      cacheWriteTokens: number(row.cache_write_tokens, 0),
      estimatedCostUsd: number(row.estimated_cost_usd, 0),
      title: text(row.title),
    }));
    const messages = new Map<string, HermesMessageRow[]>();
    for (const row of selectPresent(database, 'messages', MESSAGE_COLUMNS, 'session_id, timestamp, id')) {
      const message: HermesMessageRow = {
        id: number(row.id, 0),
        sessionId: String(row.session_id),
        role: String(row.role),
        content: text(row.content),
        toolCallId: text(row.tool_call_id),
        toolCalls: text(row.tool_calls),
        toolName: text(row.tool_name),
        timestamp: number(row.timestamp, 0),
        tokenCount: row.token_count === null || row.token_count === undefined ? null : number(row.token_count, 0),
        finishReason: text(row.finish_reason),
        active: row.active === undefined || row.active === null || number(row.active, 1) !== 0,
      };
      const list = messages.get(message.sessionId) ?? [];
      list.push(message);
      messages.set(message.sessionId, list);
    }
    return { sessions, messages };
  } finally {
    database.close();
  }
}
