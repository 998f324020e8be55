// Writes a Hermes home as a running Hermes gateway leaves it: sessions/sessions.json, state.db (SQLite, via sql.js), cron/jobs.json.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import initSqlJs from 'sql.js';

/** The parts of Hermes' SCHEMA_SQL the import reads, with the columns it must tolerate around them. */
const STATE_DB_SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, source TEXT NOT NULL, created_source TEXT, user_id TEXT, session_key TEXT, chat_id TEXT, chat_type TEXT,
  thread_id TEXT, display_name TEXT, origin_json TEXT, expiry_finalized INTEGER DEFAULT 0, model TEXT, model_config TEXT,
  system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
  message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
  cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0,
  estimated_cost_usd REAL, cost_status TEXT, title TEXT, last_activity_at REAL, archived INTEGER NOT NULL DEFAULT 0,
  FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content TEXT,
  tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
  reasoning TEXT, platform_message_id TEXT, active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
`;

export const hermesIds = {
  aliceOld: '20260228_080000_aaaa0001',
  alice: '20260301_090000_aaaa0002',
  bob: '20260302_100000_bbbb0001',
  carol: '20260302_110000_cccc0001',
  cli: '20260303_120000_dddd0001',
  badId: 'not a valid id!',
} as const;

export const hermesKeys = {
  alice: 'agent:main:telegram:dm:12345',
  bob: 'agent:main:discord:group:998877:42',
  /** Hermes joins raw ids: the ':' inside Carol's chat id is indistinguishable from a separator. */
  carol: 'agent:main:slack:dm:D:42',
} as const;

const seconds = (iso: string) => Date.parse(iso) / 1000;

interface Message {
  role: string;
  content: string | null;
  at: string;
  toolCalls?: unknown;
  toolCallId?: string;
  toolName?: string;
  active?: 0 | 1;
  tokenCount?: number;
}

const sessionRows: Array<{
  id: string;
  source: string;
  sessionKey?: string;
  userId?: string;
  originJson?: object;
  parent?: string;
  startedAt: string;
  endedAt?: string;
  endReason?: string;
  tokens?: [number, number, number, number, number];
  model?: string;
  messages: Message[];
}> = [
  {
    id: hermesIds.aliceOld,
    source: 'telegram',
    userId: '12345',
    startedAt: '2026-02-28T08:00:00Z',
    endedAt: '2026-03-01T08:55:00Z',
    endReason: 'session_reset',
    tokens: [300, 80, 0, 0, 0.02],
    model: 'hermes-4',
    messages: [
      { role: 'system', content: 'You are a helpful assistant.', at: '2026-02-28T08:00:00Z' },
      { role: 'user', content: 'hello', at: '2026-02-28T08:00:01Z' },
      { role: 'assistant', content: 'hi Alice', at: '2026-02-28T08:00:02Z', tokenCount: 3 },
      { role: 'user', content: 'what is 2+2', at: '2026-02-28T08:01:00Z' },
      { role: 'assistant', content: '4', at: '2026-02-28T08:01:01Z' },
      { role: 'user', content: 'a turn undone with /undo', at: '2026-02-28T08:02:00Z', active: 0 },
    ],
  },
  {
    id: hermesIds.alice,
    source: 'telegram',
    sessionKey: hermesKeys.alice,
    userId: '12345',
    parent: hermesIds.aliceOld,
    startedAt: '2026-03-01T09:00:00Z',
    tokens: [100, 30, 5, 0, 0.01],
    messages: [
      { role: 'user', content: 'weather?', at: '2026-03-01T09:00:05Z' },
      {
        role: 'assistant',
        content: null,
        at: '2026-03-01T09:00:06Z',
        toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
      },
      { role: 'tool', content: 'sunny', at: '2026-03-01T09:00:07Z', toolCallId: 'call_1', toolName: 'weather' },
      { role: 'assistant', content: 'It is sunny.', at: '2026-03-01T09:00:08Z' },
      { role: 'session_meta', content: '{"compaction": 0}', at: '2026-03-01T09:00:09Z' },
    ],
  },
  {
    id: hermesIds.bob,
    source: 'discord',
    sessionKey: hermesKeys.bob,
    startedAt: '2026-03-02T10:00:00Z',
    messages: [
      { role: 'user', content: 'standup?', at: '2026-03-02T10:00:01Z' },
      { role: 'assistant', content: 'at 10', at: '2026-03-02T10:00:02Z' },
    ],
  },
  {
    id: hermesIds.carol,
    source: 'slack',
    sessionKey: hermesKeys.carol,
    startedAt: '2026-03-02T11:00:00Z',
    messages: [
      { role: 'user', content: 'ping', at: '2026-03-02T11:00:01Z' },
      { role: 'assistant', content: 'pong', at: '2026-03-02T11:00:02Z' },
    ],
  },
  {
    id: hermesIds.cli,
    source: 'cli',
    startedAt: '2026-03-03T12:00:00Z',
    endedAt: '2026-03-03T12:10:00Z',
    endReason: 'cli_close',
    messages: [
      { role: 'user', content: 'local question', at: '2026-03-03T12:00:01Z' },
      { role: 'assistant', content: 'local answer', at: '2026-03-03T12:00:02Z' },
    ],
  },
  { id: hermesIds.badId, source: 'telegram', startedAt: '2026-03-04T00:00:00Z', messages: [{ role: 'user', content: 'lost', at: '2026-03-04T00:00:01Z' }] },
];

const sourceDict = (fields: Record<string, unknown>) => ({
  platform: null,
  chat_id: null,
  chat_name: null,
  chat_type: 'dm',
  user_id: null,
  user_name: null,
  thread_id: null,
  chat_topic: null,
  user_id_alt: null,
  chat_id_alt: null,
  is_bot: false,
  guild_id: null,
  parent_chat_id: null,
  message_id: null,
  role_authorized: false,
  ...fields,
});

const entry = (fields: Record<string, unknown>) => ({
  display_name: null,
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  total_tokens: 0,
  estimated_cost_usd: 0,
  cost_status: 'unknown',
  last_prompt_tokens: 0,
  was_auto_reset: false,
  auto_reset_reason: null,
  reset_had_activity: false,
  is_fresh_reset: false,
  expiry_finalized: false,
  suspended: false,
  resume_pending: false,
  resume_reason: null,
  last_resume_marked_at: null,
  ...fields,
});

/** SessionStore._save(): session_key → SessionEntry.to_dict(), datetimes as Python isoformat() (naive). */
export const hermesSessionsJson = {
  [hermesKeys.alice]: entry({
    session_key: hermesKeys.alice,
    session_id: hermesIds.alice,
    created_at: '2026-03-01T09:00:00',
    updated_at: '2026-03-01T09:30:00.250000',
    // Telegram ids arrive as numbers in Python dicts.
    origin: sourceDict({ platform: 'telegram', chat_id: 12345, chat_name: 'Alice', chat_type: 'dm', user_id: 12345, user_name: 'Alice' }),
    display_name: 'Alice',
    platform: 'telegram',
    chat_type: 'dm',
    input_tokens: 120,
    output_tokens: 40,
    cache_read_tokens: 10,
    total_tokens: 170,
    estimated_cost_usd: 0.0123,
    cost_status: 'estimated',
    last_prompt_tokens: 96,
    reset_had_activity: true,
    resume_pending: true,
    resume_reason: 'restart_timeout',
    last_resume_marked_at: '2026-03-01T09:31:00+00:00',
  }),
  [hermesKeys.bob]: entry({
    session_key: hermesKeys.bob,
    session_id: hermesIds.bob,
    created_at: '2026-03-02T10:00:00',
    updated_at: '2026-03-02T10:05:00',
    origin: sourceDict({ platform: 'discord', chat_id: '998877', chat_type: 'group', user_id: '42', user_name: 'Bob', guild_id: 'g1' }),
    platform: 'discord',
    chat_type: 'group',
    suspended: true,
  }),
  [hermesKeys.carol]: entry({
    session_key: hermesKeys.carol,
    session_id: hermesIds.carol,
    created_at: '2026-03-02T11:00:00',
    updated_at: '2026-03-02T11:00:02',
    origin: sourceDict({ platform: 'slack', chat_id: 'D:42', chat_type: 'dm', user_id: 'U42', user_name: 'Carol' }),
    platform: 'slack',
    chat_type: 'dm',
  }),
};

/** Hermes' documented cron/jobs.json, plus a job with no id and one whose schedule does not parse. */
export const hermesJobsJson = {
  jobs: [
    {
      id: 'daily-news-summary',
      schedule: '0 8 * * *',
      description: '每天早上 8 点抓取 AI 行业新闻并生成摘要',
      skill: 'ai-news-summarizer',
      deliver_to: { platform: 'telegram', chat_id: '-1001234567890' },
    },
    {
      id: 'weekly-code-review',
      schedule: '0 10 * * 1',
      description: '每周一早上 10 点审查项目代码变更',
      skill: 'code-review-assistant',
      deliver_to: { platform: 'discord', chat_id: '123456789' },
    },
    {
      id: 'health-check',
      schedule: '*/30 * * * *',
      description: '每 30 分钟检查服务器健康状态',
      skill: 'server-health-checker',
      deliver_to: { platform: 'telegram', chat_id: '123456789' },
    },
    { schedule: 'every 2h', prompt: 'check the inbox', deliver_to: { platform: 'telegram', chat_id: 12345 } },
    { id: 'broken', schedule: 'whenever it feels right', skill: 'x' },
  ],
};

export async function writeHermesHome(home: string): Promise<void> {
  await mkdir(join(home, 'sessions'), { recursive: true });
  await mkdir(join(home, 'cron'), { recursive: true });
  await writeFile(join(home, 'sessions', 'sessions.json'), JSON.stringify(hermesSessionsJson, null, 2));
  await writeFile(join(home, 'cron', 'jobs.json'), JSON.stringify(hermesJobsJson, null, 2));

  const SQL = await initSqlJs();
  const database = new SQL.Database();
  database.exec(STATE_DB_SCHEMA);
  database.run('INSERT INTO schema_version VALUES (30)');
  for (const row of sessionRows) {
    const [input, output, cacheRead, cacheWrite, cost] = row.tokens ?? [0, 0, 0, 0, 0];
    database.run(
      `INSERT INTO sessions (id, source, user_id, session_key, origin_json, model, parent_session_id, started_at, ended_at, end_reason, message_count,
         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, estimated_cost_usd) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      [
        row.id,
        row.source,
        row.userId ?? null,
        row.sessionKey ?? null,
        row.originJson ? JSON.stringify(row.originJson) : null,
        row.model ?? null,
        row.parent ?? null,
        seconds(row.startedAt),
        row.endedAt ? seconds(row.endedAt) : null,
        row.endReason ?? null,
        row.messages.length,
        input,
        output,
        cacheRead,
        cacheWrite,
        cost,
      ],
    );
    for (const message of row.messages) {
      database.run(
        'INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, token_count, active) VALUES (?,?,?,?,?,?,?,?,?)',
        [
          row.id,
          message.role,
          message.content,
          message.toolCallId ?? null,
          message.toolCalls ? JSON.stringify(message.toolCalls) : null,
          message.toolName ?? null,
          seconds(message.at),
          message.tokenCount ?? null,
          message.active ?? 1,
        ],
      );
    }
  }
  await writeFile(join(home, 'state.db'), database.export());
  database.close();
}
