// The sessions.json export: Hermes' snake_case SessionEntry per session key, with SessionSource.to_dict() as origin.
import { describe, expect, it } from 'vitest';
import type { SessionEntryView } from '../../src/modules/sessions/sessionEntryView.js';
import { toSessionsJson, toSessionSourceJson } from '../../src/modules/sessions/sessionsJsonExport.js';

const entry = (overrides: Partial<SessionEntryView> = {}): SessionEntryView => ({
  sessionKey: 'agent:main:telegram:dm:12345',
  sessionId: '20260301_090000_aaaaaaaa',
  createdAt: new Date('2026-03-01T09:00:00.000Z'),
  updatedAt: new Date('2026-03-01T09:05:30.250Z'),
  origin: { platform: 'telegram', chatType: 'dm', chatId: '12345', chatName: 'Alice', userId: '12345', userName: 'Alice', isBot: false, roleAuthorized: false },
  displayName: 'Alice',
  platform: 'telegram',
  chatType: 'dm',
  gatewayId: 'gw-1',
  resetPolicy: null,
  suspended: false,
  resumePending: true,
  resumeReason: 'restart_timeout',
  lastResumeMarkedAt: new Date('2026-03-01T09:05:00.000Z'),
  wasAutoReset: false,
  autoResetReason: null,
  resetHadActivity: true,
  isFreshReset: false,
  expiryFinalized: false,
  inputTokens: 250,
  outputTokens: 50,
  cacheReadTokens: 15,
  cacheWriteTokens: 2,
  totalTokens: 317,
  estimatedCostUsd: 0.3,
  costStatus: 'estimated',
  lastPromptTokens: 160,
  turnCount: 2,
  ...overrides,
});

describe('sessions.json export', () => {
  it("maps an entry to Hermes' SessionEntry fields, snake_case, timestamps as ISO strings", () => {
    expect(toSessionsJson([entry()])).toEqual({
      'agent:main:telegram:dm:12345': {
        session_key: 'agent:main:telegram:dm:12345',
        session_id: '20260301_090000_aaaaaaaa',
        created_at: '2026-03-01T09:00:00.000Z',
        updated_at: '2026-03-01T09:05:30.250Z',
        origin: {
          platform: 'telegram',
          chat_id: '12345',
          chat_name: 'Alice',
          chat_type: 'dm',
          user_id: '12345',
          user_name: 'Alice',
          thread_id: null,
          chat_topic: null,
          user_id_alt: null,
          chat_id_alt: null,
          is_bot: false,
          guild_id: null,
          parent_chat_id: null,
          message_id: null,
          role_authorized: false,
        },
        display_name: 'Alice',
        platform: 'telegram',
        chat_type: 'dm',
        input_tokens: 250,
        output_tokens: 50,
        cache_read_tokens: 15,
        cache_write_tokens: 2,
        total_tokens: 317,
        estimated_cost_usd: 0.3,
        cost_status: 'estimated',
        last_prompt_tokens: 160,
        was_auto_reset: false,
        auto_reset_reason: null,
        reset_had_activity: true,
        is_fresh_reset: false,
        expiry_finalized: false,
        suspended: false,
        resume_pending: true,
        resume_reason: 'restart_timeout',
        last_resume_marked_at: '2026-03-01T09:05:00.000Z',
      },
    });
  });

  it('keys every entry by its session key and leaves an empty index an empty object', () => {
    const exported = toSessionsJson([
      entry(),
      entry({ sessionKey: 'agent:main:discord:group:777:u9', lastResumeMarkedAt: null, costStatus: 'unknown', estimatedCostUsd: 0 }),
    ]);
    expect(Object.keys(exported)).toEqual(['agent:main:telegram:dm:12345', 'agent:main:discord:group:777:u9']);
    expect(exported['agent:main:discord:group:777:u9']).toMatchObject({ last_resume_marked_at: null, cost_status: 'unknown', estimated_cost_usd: 0 });
    expect(toSessionsJson([])).toEqual({});
  });

  it('writes every SessionSource field of Hermes, each one from its camelCase twin', () => {
    const origin = toSessionSourceJson({
      platform: 'discord',
      chatType: 'thread',
      chatId: 'c1',
      chatName: 'general',
      userId: 'u1',
      userName: 'Bob',
      threadId: 't1',
      chatTopic: 'release planning',
      userIdAlt: 'u1-alt',
      chatIdAlt: 'c1-alt',
      isBot: true,
      guildId: 'g1',
      parentChatId: 'p1',
      messageId: 'm1',
      roleAuthorized: true,
    });
    expect(origin).toEqual({
      platform: 'discord',
      chat_id: 'c1',
      chat_name: 'general',
      chat_type: 'thread',
      user_id: 'u1',
      user_name: 'Bob',
      thread_id: 't1',
      chat_topic: 'release planning',
      user_id_alt: 'u1-alt',
      chat_id_alt: 'c1-alt',
      is_bot: true,
      guild_id: 'g1',
      parent_chat_id: 'p1',
      message_id: 'm1',
      role_authorized: true,
    });
  });
});
