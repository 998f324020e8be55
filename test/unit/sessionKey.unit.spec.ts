import { describe, expect, it } from 'vitest';
import { sessionKeyFor, type SessionKeyOptions } from '../../src/modules/sessions/domain/sessionKey.js';
import { parseSessionSource, type SessionSourceInput } from '../../src/modules/sessions/domain/sessionSourceSchema.js';

const keyOf = (input: SessionSourceInput, options?: SessionKeyOptions) => sessionKeyFor(parseSessionSource(input), options);

const bothFlags = [
  { groupSessionsPerUser: true, threadSessionsPerUser: true },
  { groupSessionsPerUser: true, threadSessionsPerUser: false },
  { groupSessionsPerUser: false, threadSessionsPerUser: true },
  { groupSessionsPerUser: false, threadSessionsPerUser: false },
];

describe('sessionKeyFor', () => {
  describe('a DM', () => {
    it('with a chat id is keyed by the chat id', () => {
      expect(keyOf({ platform: 'telegram', chatType: 'dm', chatId: '12345', userId: 'u1' })).toBe('agent:main:telegram:dm:12345');
    });

    it('with a chat id and a thread adds the thread', () => {
      expect(keyOf({ platform: 'telegram', chatType: 'dm', chatId: '12345', threadId: 'thread_678' })).toBe('agent:main:telegram:dm:12345:thread_678');
    });

    it.each(bothFlags)('with a chat id never carries the participant (%o)', (flags) => {
      expect(keyOf({ platform: 'slack', chatType: 'dm', chatId: 'D1', userId: 'U1', userIdAlt: 'A1' }, flags)).toBe('agent:main:slack:dm:D1');
    });

    it('without a chat id falls back to the stable alternate user id', () => {
      expect(keyOf({ platform: 'signal', chatType: 'dm', userId: '+15550001', userIdAlt: 'user_abc' })).toBe('agent:main:signal:dm:user_abc');
    });

    it('without a chat id or alternate id falls back to the user id', () => {
      expect(keyOf({ platform: 'signal', chatType: 'dm', userId: 'user_abc' })).toBe('agent:main:signal:dm:user_abc');
    });

    it('without a chat id puts the participant before the thread, as Hermes does', () => {
      expect(keyOf({ platform: 'signal', chatType: 'dm', userId: 'user_abc', threadId: 't9' })).toBe('agent:main:signal:dm:user_abc:t9');
    });

    it('without a chat id or user falls back to the thread', () => {
      expect(keyOf({ platform: 'telegram', chatType: 'dm', threadId: 't9' })).toBe('agent:main:telegram:dm:t9');
    });

    it('without any identifier collapses into the one shared DM session of the platform', () => {
      expect(keyOf({ platform: 'telegram', chatType: 'dm' })).toBe('agent:main:telegram:dm');
    });

    it('treats empty ids as absent', () => {
      expect(keyOf({ platform: 'signal', chatType: 'dm', chatId: '', userIdAlt: '', userId: 'user_abc' })).toBe('agent:main:signal:dm:user_abc');
    });
  });

  describe('a group', () => {
    const group = { platform: 'telegram', chatType: 'group', chatId: '-10012345', userId: 'user_abc' } as const;

    it('is isolated per user by default', () => {
      expect(keyOf(group)).toBe('agent:main:telegram:group:-10012345:user_abc');
    });

    it('is shared when groupSessionsPerUser is off', () => {
      expect(keyOf(group, { groupSessionsPerUser: false })).toBe('agent:main:telegram:group:-10012345');
    });

    it('ignores threadSessionsPerUser outside a thread', () => {
      expect(keyOf(group, { groupSessionsPerUser: true, threadSessionsPerUser: true })).toBe('agent:main:telegram:group:-10012345:user_abc');
      expect(keyOf(group, { groupSessionsPerUser: false, threadSessionsPerUser: true })).toBe('agent:main:telegram:group:-10012345');
    });

    it('prefers the alternate user id as participant', () => {
      expect(keyOf({ ...group, userIdAlt: 'uuid-1' })).toBe('agent:main:telegram:group:-10012345:uuid-1');
    });

    it('has no participant segment when the sender is unknown', () => {
      expect(keyOf({ ...group, userId: undefined })).toBe('agent:main:telegram:group:-10012345');
    });
  });

  describe('a thread inside a group', () => {
    const topic = { platform: 'discord', chatType: 'group', chatId: '12345', threadId: 'thread_678', userId: 'user_abc' } as const;

    it.each([
      [{ groupSessionsPerUser: true, threadSessionsPerUser: true }, 'agent:main:discord:group:12345:thread_678:user_abc'],
      [{ groupSessionsPerUser: true, threadSessionsPerUser: false }, 'agent:main:discord:group:12345:thread_678'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: true }, 'agent:main:discord:group:12345:thread_678'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: false }, 'agent:main:discord:group:12345:thread_678'],
    ])('carries the participant only when both flags are on (%o)', (flags, key) => {
      expect(keyOf(topic, flags)).toBe(key);
    });

    it('is shared by default', () => {
      expect(keyOf(topic)).toBe('agent:main:discord:group:12345:thread_678');
    });
  });

  describe('a channel', () => {
    const channel = { platform: 'slack', chatType: 'channel', chatId: 'C12345', userId: 'U1' } as const;

    it.each([
      [{ groupSessionsPerUser: true, threadSessionsPerUser: true }, 'agent:main:slack:channel:C12345:U1'],
      [{ groupSessionsPerUser: true, threadSessionsPerUser: false }, 'agent:main:slack:channel:C12345:U1'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: true }, 'agent:main:slack:channel:C12345'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: false }, 'agent:main:slack:channel:C12345'],
    ])('follows groupSessionsPerUser (%o)', (flags, key) => {
      expect(keyOf(channel, flags)).toBe(key);
    });

    it.each([
      [{ groupSessionsPerUser: true, threadSessionsPerUser: true }, 'agent:main:slack:channel:C12345:1700000000.000100:U1'],
      [{ groupSessionsPerUser: true, threadSessionsPerUser: false }, 'agent:main:slack:channel:C12345:1700000000.000100'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: true }, 'agent:main:slack:channel:C12345:1700000000.000100'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: false }, 'agent:main:slack:channel:C12345:1700000000.000100'],
    ])('thread carries the participant only when both flags are on (%o)', (flags, key) => {
      expect(keyOf({ ...channel, threadId: '1700000000.000100' }, flags)).toBe(key);
    });
  });

  describe('a thread-typed chat', () => {
    const thread = { platform: 'discord', chatType: 'thread', chatId: '999', parentChatId: '12345', userId: 'user_abc' } as const;

    it.each([
      [{ groupSessionsPerUser: true, threadSessionsPerUser: true }, 'agent:main:discord:thread:999:user_abc'],
      [{ groupSessionsPerUser: true, threadSessionsPerUser: false }, 'agent:main:discord:thread:999:user_abc'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: true }, 'agent:main:discord:thread:999'],
      [{ groupSessionsPerUser: false, threadSessionsPerUser: false }, 'agent:main:discord:thread:999'],
    ])('without a thread id is keyed like a group, as Hermes keys it (%o)', (flags, key) => {
      expect(keyOf(thread, flags)).toBe(key);
    });

    it.each([
      [{ groupSessionsPerUser: true, threadSessionsPerUser: true }, 'agent:main:discord:thread:999:t1:user_abc'],
      [{ groupSessionsPerUser: true, threadSessionsPerUser: false }, 'agent:main:discord:thread:999:t1'],
    ])('with a thread id is a thread (%o)', (flags, key) => {
      expect(keyOf({ ...thread, threadId: 't1' }, flags)).toBe(key);
    });
  });

  describe('on WhatsApp', () => {
    const aliasForms = ['+15551234567', '15551234567', '15551234567@s.whatsapp.net', '15551234567:12@s.whatsapp.net'];

    it.each(aliasForms)('every alias form of a DM chat id gives one key (%s)', (chatId) => {
      expect(keyOf({ platform: 'whatsapp', chatType: 'dm', chatId })).toBe('agent:main:whatsapp:dm:15551234567');
    });

    it.each(aliasForms)('every alias form of a DM participant gives one key (%s)', (userId) => {
      expect(keyOf({ platform: 'whatsapp', chatType: 'dm', userId })).toBe('agent:main:whatsapp:dm:15551234567');
    });

    it.each(aliasForms)('every alias form of a group participant gives one key (%s)', (userId) => {
      expect(keyOf({ platform: 'whatsapp', chatType: 'group', chatId: '120363025246125486@g.us', userId })).toBe(
        'agent:main:whatsapp:group:120363025246125486@g.us:15551234567',
      );
    });

    it('leaves group chat ids as sent (with SESSION_KEY_ESCAPE_IDS, the separator inside them is escaped)', () => {
      const source = { platform: 'whatsapp', chatType: 'group', chatId: '+120363025246125486:1@g.us' } as const;
      expect(keyOf(source, { groupSessionsPerUser: false })).toBe('agent:main:whatsapp:group:+120363025246125486:1@g.us');
      expect(keyOf(source, { groupSessionsPerUser: false, escapeIds: true })).toBe('agent:main:whatsapp:group:+120363025246125486%3A1@g.us');
    });

    it('maps linked-device ids through the alias map after canonicalising', () => {
      const whatsappAliases = { '98765432109876': '15551234567' };
      expect(keyOf({ platform: 'whatsapp', chatType: 'dm', chatId: '98765432109876@lid' }, { whatsappAliases })).toBe('agent:main:whatsapp:dm:15551234567');
      expect(keyOf({ platform: 'whatsapp', chatType: 'group', chatId: '1203@g.us', userId: '98765432109876:3@lid' }, { whatsappAliases })).toBe(
        'agent:main:whatsapp:group:1203@g.us:15551234567',
      );
    });

    it('falls back to the participant when the chat id canonicalises to nothing', () => {
      expect(keyOf({ platform: 'whatsapp', chatType: 'dm', chatId: '@s.whatsapp.net', userId: '+15551234567' })).toBe('agent:main:whatsapp:dm:15551234567');
    });

    it('falls back to the user id when the alternate id canonicalises to nothing', () => {
      expect(keyOf({ platform: 'whatsapp', chatType: 'dm', userIdAlt: '+', userId: '15551234567@s.whatsapp.net' })).toBe('agent:main:whatsapp:dm:15551234567');
    });

    it('canonicalises only on the whatsapp platform', () => {
      expect(keyOf({ platform: 'signal', chatType: 'dm', chatId: '+15551234567' })).toBe('agent:main:signal:dm:+15551234567');
      expect(keyOf({ platform: 'telegram', chatType: 'dm', chatId: '1@x' }, { whatsappAliases: { '1@x': '2' } })).toBe('agent:main:telegram:dm:1@x');
    });
  });

  it('names the agent', () => {
    expect(keyOf({ platform: 'telegram', chatType: 'dm', chatId: '1' }, { agent: 'ops' })).toBe('agent:ops:telegram:dm:1');
  });

  it('does not depend on names, topics, message ids or flags of the sender', () => {
    const base = { platform: 'telegram', chatType: 'group', chatId: '-1', userId: 'u' } as const;
    expect(keyOf({ ...base, chatName: 'A', userName: 'B', chatTopic: 'C', messageId: '9', isBot: true, roleAuthorized: true })).toBe(keyOf(base));
  });
});

describe('sessionKeyFor: ids that contain the separator', () => {
  const options = { groupSessionsPerUser: false };
  const keyOfChat = (input: SessionSourceInput, escapeIds: boolean) => sessionKeyFor(parseSessionSource(input), { ...options, escapeIds });

  it("keeps them as they are by default, as Hermes does (so 'a:b' and 'a' in thread 'b' share a key)", () => {
    expect(keyOfChat({ platform: 'matrix', chatType: 'group', chatId: 'a:b' }, false)).toBe('agent:main:matrix:group:a:b');
    expect(keyOfChat({ platform: 'matrix', chatType: 'group', chatId: 'a', threadId: 'b' }, false)).toBe('agent:main:matrix:group:a:b');
  });

  it('with SESSION_KEY_ESCAPE_IDS escapes ":" and "%" inside a part so that different sources never share a key', () => {
    expect(keyOfChat({ platform: 'matrix', chatType: 'group', chatId: 'a:b' }, true)).toBe('agent:main:matrix:group:a%3Ab');
    expect(keyOfChat({ platform: 'matrix', chatType: 'group', chatId: 'a', threadId: 'b' }, true)).toBe('agent:main:matrix:group:a:b');
    expect(keyOfChat({ platform: 'matrix', chatType: 'group', chatId: 'a%3Ab' }, true)).toBe('agent:main:matrix:group:a%253Ab');
  });
});
