// A Hermes home in the formats the current Hermes writes: SessionEntry.to_dict() and SessionSource.to_dict() in
// gateway/session.py (metadata, model_override, active_turn_*, prev_session_id; the source's optional keys only when
// set, scope_id beside guild_id), state.db's sessions and messages (hermes_state.py), and cron/jobs.py's job records
// (parsed schedule objects, `deliver`, `skills`, `repeat.completed`, `state`).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import initSqlJs from 'sql.js';

const STATE_DB_SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT, parent_session_id TEXT,
  started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
  input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0,
  reasoning_tokens INTEGER DEFAULT 0, billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL,
  actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT, session_key TEXT, chat_id TEXT,
  chat_type TEXT, thread_id TEXT, display_name TEXT, origin_json TEXT, archived INTEGER NOT NULL DEFAULT 0,
  FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content TEXT,
  tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
  reasoning TEXT, reasoning_details TEXT, codex_reasoning_items TEXT, active INTEGER NOT NULL DEFAULT 1
);
`;

export const realIds = {
  danaOld: '20260401_080000_d0d0d0d0',
  dana: '20260401_090000_d1d1d1d1',
  team: '20260402_100000_e1e1e1e1',
  erinOld: '20260403_110000_f0f0f0f0',
  erin: '20260403_120000_f1f1f1f1',
  cliOld: '20260404_070000_c0c0c0c0',
  cli: '20260404_080000_c1c1c1c1',
} as const;

export const realKeys = {
  dana: 'agent:main:telegram:dm:5551',
  team: 'agent:main:discord:group:4242:7',
  erin: 'agent:main:telegram:dm:5552',
  cli: 'agent:main:cli:dm',
} as const;

/** SessionSource.to_dict(): the always-present keys, then the optional ones only when set. */
const source = (platform: string, fields: Record<string, unknown>, optional: Record<string, unknown> = {}) => ({
  platform,
  chat_id: null,
  chat_name: null,
  chat_type: 'dm',
  user_id: null,
  user_name: null,
  thread_id: null,
  chat_topic: null,
  ...fields,
  ...optional,
});

/** SessionEntry.to_dict(), in its key order; naive isoformat() times, as Hermes' _now() gives them. */
const entry = (fields: Record<string, unknown>) => ({
  session_key: null,
  session_id: null,
  created_at: null,
  updated_at: null,
  display_name: null,
  platform: null,
  chat_type: 'dm',
  metadata: {},
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  total_tokens: 0,
  last_prompt_tokens: 0,
  estimated_cost_usd: 0,
  cost_status: 'unknown',
  expiry_finalized: false,
  suspended: false,
  resume_pending: false,
  resume_reason: null,
  last_resume_marked_at: null,
  active_turn_token: null,
  active_turn_started_at: null,
  is_fresh_reset: false,
  was_auto_reset: false,
  auto_reset_reason: null,
  reset_had_activity: false,
  prev_session_id: null,
  ...fields,
});

export const realSessionsJson: Record<string, Record<string, unknown>> = {
  [realKeys.dana]: entry({
    session_key: realKeys.dana,
    session_id: realIds.dana,
    created_at: '2026-04-01T09:00:00',
    updated_at: '2026-04-01T09:15:00.500000',
    // Set by hand, unlike the chat's own name.
    display_name: 'Dana (work)',
    platform: 'telegram',
    metadata: { telegram_last_update_id: 88123, topic_skills_injected: ['writing'] },
    input_tokens: 200,
    output_tokens: 50,
    cache_read_tokens: 20,
    cache_write_tokens: 5,
    total_tokens: 275,
    last_prompt_tokens: 180,
    estimated_cost_usd: 0.0215,
    cost_status: 'estimated',
    resume_pending: true,
    resume_reason: 'restart_timeout',
    // Marked after the last message: Hermes does not move updated_at for it.
    last_resume_marked_at: '2026-04-01T09:20:00',
    active_turn_token: 'turn-5f2a',
    active_turn_started_at: '2026-04-01T09:14:58.250000',
    was_auto_reset: true,
    auto_reset_reason: 'idle',
    reset_had_activity: true,
    prev_session_id: realIds.danaOld,
    model_override: { model: 'hermes-4-405b', provider: 'nous' },
    origin: source('telegram', { chat_id: '5551', chat_name: 'Dana', user_id: '5551', user_name: 'dana_k' }, { user_id_alt: 'dana-uuid-1' }),
  }),
  [realKeys.team]: entry({
    session_key: realKeys.team,
    session_id: realIds.team,
    created_at: '2026-04-02T10:00:00',
    updated_at: '2026-04-02T10:30:00',
    // No display name, though the channel has a name: it must come back as null.
    display_name: null,
    platform: 'discord',
    chat_type: 'group',
    input_tokens: 40,
    output_tokens: 12,
    total_tokens: 52,
    last_prompt_tokens: 33,
    cost_status: 'included',
    expiry_finalized: true,
    suspended: true,
    origin: source(
      'discord',
      { chat_id: '4242', chat_name: 'general', chat_type: 'group', user_id: '7', user_name: 'Sam', chat_topic: 'release planning' },
      {
        scope_id: 'guild-9',
        guild_id: 'guild-9',
        message_id: '1001',
        auto_thread_initial_name: 'release-notes',
      },
    ),
  }),
  [realKeys.erin]: entry({
    session_key: realKeys.erin,
    session_id: realIds.erin,
    created_at: '2026-04-03T12:00:00',
    updated_at: '2026-04-03T12:00:00',
    display_name: 'Erin',
    platform: 'telegram',
    // Just reset with /new: no message in the new session yet.
    is_fresh_reset: true,
    reset_had_activity: true,
    origin: source('telegram', { chat_id: '5552', chat_name: 'Erin', user_id: '5552', user_name: 'Erin' }),
  }),
};

interface Row {
  id: string;
  source: string;
  key?: string;
  userId?: string;
  parent?: string;
  startedAt: string;
  endedAt?: string;
  endReason?: string;
  messages: Array<[string, string, string]>;
}

const rows: Row[] = [
  {
    id: realIds.danaOld,
    source: 'telegram',
    key: realKeys.dana,
    userId: '5551',
    startedAt: '2026-04-01T08:00:00Z',
    endedAt: '2026-04-01T09:00:00Z',
    endReason: 'idle',
    messages: [
      ['user', 'draft my standup', '2026-04-01T08:00:01Z'],
      ['assistant', 'Here it is.', '2026-04-01T08:00:03Z'],
    ],
  },
  {
    id: realIds.dana,
    source: 'telegram',
    key: realKeys.dana,
    userId: '5551',
    parent: realIds.danaOld,
    startedAt: '2026-04-01T09:00:00Z',
    messages: [
      ['user', 'shorter please', '2026-04-01T09:14:58Z'],
      ['assistant', 'Done.', '2026-04-01T09:15:00Z'],
    ],
  },
  {
    id: realIds.team,
    source: 'discord',
    key: realKeys.team,
    userId: '7',
    startedAt: '2026-04-02T10:00:00Z',
    messages: [
      ['user', 'what ships friday?', '2026-04-02T10:29:00Z'],
      ['assistant', 'The importer.', '2026-04-02T10:30:00Z'],
    ],
  },
  {
    id: realIds.erinOld,
    source: 'telegram',
    key: realKeys.erin,
    userId: '5552',
    startedAt: '2026-04-03T11:00:00Z',
    endedAt: '2026-04-03T12:00:00Z',
    endReason: 'new_session',
    messages: [
      ['user', 'hi', '2026-04-03T11:00:01Z'],
      ['assistant', 'hello', '2026-04-03T11:00:02Z'],
    ],
  },
  { id: realIds.erin, source: 'telegram', key: realKeys.erin, userId: '5552', parent: realIds.erinOld, startedAt: '2026-04-03T12:00:00Z', messages: [] },
  // `hermes` in a terminal: no routing entry, no session key.
  {
    id: realIds.cliOld,
    source: 'cli',
    startedAt: '2026-04-04T07:00:00Z',
    endedAt: '2026-04-04T07:30:00Z',
    endReason: 'cli_close',
    messages: [
      ['user', 'list my files', '2026-04-04T07:00:05Z'],
      ['assistant', 'a.txt b.txt', '2026-04-04T07:00:07Z'],
    ],
  },
  {
    id: realIds.cli,
    source: 'cli',
    startedAt: '2026-04-04T08:00:00Z',
    endedAt: '2026-04-04T08:20:00Z',
    endReason: 'cli_close',
    messages: [
      ['user', 'what is in a.txt', '2026-04-04T08:00:05Z'],
      ['assistant', 'notes', '2026-04-04T08:00:07Z'],
    ],
  },
];

/** cron/jobs.py create_job() records, as save_jobs() writes them. */
const job = (fields: Record<string, unknown>) => ({
  id: null,
  name: null,
  prompt: null,
  skills: [],
  skill: null,
  model: null,
  provider: null,
  base_url: null,
  script: null,
  no_agent: false,
  context_from: null,
  schedule: null,
  schedule_display: null,
  repeat: { times: null, completed: 0 },
  enabled: true,
  state: 'scheduled',
  paused_at: null,
  paused_reason: null,
  created_at: '2026-04-01T08:00:00+00:00',
  next_run_at: null,
  last_run_at: null,
  last_status: null,
  last_error: null,
  last_delivery_error: null,
  deliver: 'local',
  origin: null,
  enabled_toolsets: null,
  workdir: null,
  ...fields,
});

const danaOrigin = { platform: 'telegram', chat_id: '5551', chat_name: 'Dana', thread_id: null };

export const realJobsJson = {
  jobs: [
    job({
      id: 'a1b2c3d4e5f6',
      name: 'Morning brief',
      prompt: 'Summarise the overnight news',
      schedule: { kind: 'cron', expr: '0 8 * * *', display: '0 8 * * *' },
      schedule_display: '0 8 * * *',
      repeat: { times: null, completed: 3 },
      deliver: 'origin',
      origin: danaOrigin,
    }),
    job({
      id: 'b2c3d4e5f6a1',
      name: 'server-health',
      skills: ['server-health'],
      skill: 'server-health',
      schedule: { kind: 'interval', minutes: 30, display: 'every 30m' },
      schedule_display: 'every 30m',
      repeat: { times: 10, completed: 4 },
      deliver: 'telegram:-100200',
    }),
    job({
      id: 'c3d4e5f6a1b2',
      name: 'New year note',
      prompt: 'Wish the team a happy new year',
      schedule: { kind: 'once', run_at: '2099-01-01T09:00:00.123456+00:00', display: 'once at 2099-01-01 09:00' },
      repeat: { times: 1, completed: 0 },
    }),
    job({
      id: 'd4e5f6a1b2c3',
      name: 'Daily digest',
      prompt: 'Digest the channel',
      schedule: { kind: 'interval', minutes: 1440, display: 'every 1440m' },
      state: 'paused',
      paused_at: '2026-04-02T00:00:00+00:00',
      paused_reason: 'user',
      deliver: 'discord',
      origin: { platform: 'discord', chat_id: '4242', chat_name: 'general', thread_id: null },
    }),
    // An older Hermes wrote {"type", "value"} schedules.
    job({
      id: 'e5f6a1b2c3d4',
      name: 'Inbox sweep',
      prompt: 'Sweep the inbox',
      schedule: { type: 'interval', value: { n: 2, unit: 'hours' }, display: 'every 2h' },
    }),
    // A script-only job: the ledger's jobs need a prompt or a skill, so it is reported refused.
    job({ id: 'f6a1b2c3d4e5', name: 'disk check', script: 'disk.sh', no_agent: true, schedule: { kind: 'interval', minutes: 60, display: 'every 60m' } }),
  ],
  updated_at: '2026-04-04T08:00:00+00:00',
};

export async function writeRealHermesHome(home: string): Promise<void> {
  await mkdir(join(home, 'sessions'), { recursive: true });
  await mkdir(join(home, 'cron'), { recursive: true });
  await writeFile(join(home, 'sessions', 'sessions.json'), JSON.stringify(realSessionsJson, null, 2));
  await writeFile(join(home, 'cron', 'jobs.json'), JSON.stringify(realJobsJson, null, 2));
  const SQL = await initSqlJs();
  const database = new SQL.Database();
  database.exec(STATE_DB_SCHEMA);
  database.run('INSERT INTO schema_version VALUES (31)');
  const seconds = (iso: string) => Date.parse(iso) / 1000;
  for (const row of rows) {
    database.run(
      'INSERT INTO sessions (id, source, user_id, session_key, parent_session_id, started_at, ended_at, end_reason, message_count) VALUES (?,?,?,?,?,?,?,?,?)',
      [
        row.id,
        row.source,
        row.userId ?? null,
        row.key ?? null,
        row.parent ?? null,
        seconds(row.startedAt),
        row.endedAt ? seconds(row.endedAt) : null,
        row.endReason ?? null,
        row.messages.length,
      ],
    );
    for (const [role, content, at] of row.messages)
      database.run('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?,?,?,?)', [row.id, role, content, seconds(at)]);
  }
  await writeFile(join(home, 'state.db'), database.export());
  database.close();
}
