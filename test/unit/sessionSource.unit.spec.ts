import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors/ledgerError.js';
import { parseSessionSource, sessionSourceSchema } from '../../src/modules/sessions/domain/sessionSourceSchema.js';

const rejects = (input: Record<string, unknown>, path: string) => {
  const result = sessionSourceSchema.safeParse(input);
  expect(result.success).toBe(false);
  expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(path);
};

describe('SessionSource', () => {
  it("takes a missing, empty or null chatType as Hermes' default, dm", () => {
    for (const absent of [{}, { chatType: '' }, { chatType: null }]) {
      expect(parseSessionSource({ platform: 'telegram', chatId: '1', ...absent }).chatType).toBe('dm');
    }
  });

  it('needs only platform and chatType; flags default to false', () => {
    expect(parseSessionSource({ platform: 'telegram', chatType: 'dm' })).toEqual({
      platform: 'telegram',
      chatType: 'dm',
      isBot: false,
      roleAuthorized: false,
    });
  });

  it('keeps every field of the source table', () => {
    const full = {
      platform: 'discord',
      chatId: '222',
      chatName: 'general',
      chatType: 'thread',
      userId: '111',
      userName: 'Alice',
      threadId: '333',
      chatTopic: 'Release planning',
      userIdAlt: 'alt-111',
      chatIdAlt: 'alt-222',
      isBot: true,
      guildId: '444',
      parentChatId: '555',
      messageId: '666',
      roleAuthorized: true,
    };
    expect(parseSessionSource(full)).toEqual(full);
  });

  it('treats empty strings and null as absent', () => {
    const parsed = parseSessionSource({ platform: 'slack', chatType: 'group', chatId: '', userName: '', threadId: null, isBot: '' });
    expect(parsed.chatId).toBeUndefined();
    expect(parsed.userName).toBeUndefined();
    expect(parsed.threadId).toBeUndefined();
    expect(parsed.isBot).toBe(false);
  });

  it('coerces numeric ids to strings', () => {
    const parsed = parseSessionSource({ platform: 'telegram', chatType: 'group', chatId: -1001234567890, userId: 42, messageId: 7 });
    expect(parsed).toMatchObject({ chatId: '-1001234567890', userId: '42', messageId: '7' });
  });

  it('rejects numbers that cannot be exact ids (fractions, beyond 2^53)', () => {
    rejects({ platform: 'telegram', chatType: 'dm', chatId: 1.5 }, 'chatId');
    rejects({ platform: 'discord', chatType: 'dm', userId: 2 ** 60 }, 'userId');
  });

  it('does not coerce numbers into names', () => {
    rejects({ platform: 'telegram', chatType: 'group', chatName: 123 }, 'chatName');
  });

  it('is frozen once parsed', () => {
    expect(Object.isFrozen(parseSessionSource({ platform: 'telegram', chatType: 'dm' }))).toBe(true);
  });

  describe('rejects', () => {
    it('a missing or empty platform', () => {
      rejects({ chatType: 'dm' }, 'platform');
      rejects({ platform: '', chatType: 'dm' }, 'platform');
    });

    it.each(['Telegram', 'tele gram', 'a:b', 'x'.repeat(33)])('the platform %j', (platform) => {
      rejects({ platform, chatType: 'dm' }, 'platform');
    });

    it.each(['private', 'DM', 'Group'])('the chatType %j', (chatType) => rejects({ platform: 'telegram', chatType }, 'chatType'));

    it('unknown fields, including snake_case spellings', () => {
      rejects({ platform: 'telegram', chatType: 'dm', chat_id: '1' }, '');
    });

    it('ids longer than 256 characters', () => {
      expect(sessionSourceSchema.safeParse({ platform: 'telegram', chatType: 'dm', userId: 'u'.repeat(256) }).success).toBe(true);
      rejects({ platform: 'telegram', chatType: 'dm', userId: 'u'.repeat(257) }, 'userId');
    });

    it('names and topics longer than 1024 characters', () => {
      expect(sessionSourceSchema.safeParse({ platform: 'slack', chatType: 'channel', chatTopic: 't'.repeat(1024) }).success).toBe(true);
      rejects({ platform: 'slack', chatType: 'channel', chatTopic: 't'.repeat(1025) }, 'chatTopic');
      rejects({ platform: 'slack', chatType: 'channel', userName: 'n'.repeat(1025) }, 'userName');
    });

    it('non-boolean flags', () => rejects({ platform: 'discord', chatType: 'dm', isBot: 'true' }, 'isBot'));
  });

  it('parseSessionSource fails with the service ValidationError listing each issue', () => {
    const attempt = () => parseSessionSource({ platform: 'Bad', chatType: 'dm' });
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(expect.objectContaining({ status: 400, details: { issues: [expect.objectContaining({ path: 'platform' })] } }));
  });
});
