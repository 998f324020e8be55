import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PII_SAFE_PLATFORMS, redactChatId, redactSessionKey, redactSourceIds, redactUserId } from '../../src/modules/sessions/domain/piiRedaction.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';

// sha256("12345") = 5994471abb01…, sha256("-1001234567890") = 150aae61cb00…, sha256("abc") = ba7816bf8f01…
describe('redactUserId', () => {
  it('is user_ and the first 12 hex digits of the SHA-256 of the id', () => {
    expect(redactUserId('12345')).toBe('user_5994471abb01');
  });

  it('is deterministic, so one user keeps one pseudonym', () => {
    expect(redactUserId('+15551234567')).toBe(redactUserId('+15551234567'));
    expect(redactUserId('+15551234567')).not.toBe(redactUserId('+15551234568'));
  });
});

describe('redactChatId', () => {
  it('hashes a plain chat id to 12 hex digits', () => {
    expect(redactChatId('-1001234567890')).toBe('150aae61cb00');
  });

  it('keeps the prefix before the first colon and hashes the rest', () => {
    expect(redactChatId('telegram:-1001234567890')).toBe('telegram:150aae61cb00');
    expect(redactChatId('group:abc')).toBe('group:ba7816bf8f01');
  });

  it('hashes everything after the first colon, further colons included', () => {
    expect(redactChatId('a:b:c')).toBe('a:333edf7c3ca3'); // sha256("b:c")
  });

  it('treats a leading colon as no prefix', () => {
    expect(redactChatId(':abc')).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe('redactSessionKey', () => {
  it('keeps namespace, platform and chat type, and hashes the ids after them as one', () => {
    const sha12 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12);
    expect(redactSessionKey('agent:main:telegram:group:-100123:42')).toBe(`agent:main:telegram:group:${sha12('-100123:42')}`);
    expect(redactSessionKey('agent:main:telegram:dm:12345')).toMatch(/^agent:main:telegram:dm:[0-9a-f]{12}$/);
    expect(redactSessionKey('agent:main:telegram:dm:12345')).not.toContain('12345');
  });

  it('leaves a key with no ids alone, and hashes a key of another shape whole', () => {
    expect(redactSessionKey('agent:main:local:dm')).toBe('agent:main:local:dm');
    expect(redactSessionKey('imported-12345')).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe('redactSourceIds', () => {
  const telegram = parseSessionSource({
    platform: 'telegram',
    chatType: 'group',
    chatId: '-1001234567890',
    chatIdAlt: 'alt:abc',
    parentChatId: '-100999',
    chatName: 'Family',
    chatTopic: 'Holidays',
    userId: '12345',
    userIdAlt: 'abc',
    userName: 'Alice',
    threadId: '7',
    messageId: '42',
  });

  it('hashes user ids and chat ids', () => {
    expect(redactSourceIds(telegram)).toMatchObject({
      userId: 'user_5994471abb01',
      userIdAlt: 'user_ba7816bf8f01',
      chatId: '150aae61cb00',
      chatIdAlt: 'alt:ba7816bf8f01',
      parentChatId: redactChatId('-100999'),
    });
  });

  it('leaves names, topics, thread and message ids untouched', () => {
    expect(redactSourceIds(telegram)).toMatchObject({
      chatName: 'Family',
      chatTopic: 'Holidays',
      userName: 'Alice',
      threadId: '7',
      messageId: '42',
    });
  });

  it("hashes the ids of any platform it is given: which platforms may be hashed is the prompt's decision", () => {
    const discord = parseSessionSource({ platform: 'discord', chatType: 'channel', chatId: '222', userId: '111' });
    expect(redactSourceIds(discord)).toMatchObject({ chatId: redactChatId('222'), userId: redactUserId('111') });
  });

  it("defaults to Hermes' _PII_SAFE_PLATFORMS: WhatsApp, Signal, Telegram and BlueBubbles ids may be hashed, Discord's may not", () => {
    expect([...DEFAULT_PII_SAFE_PLATFORMS].sort()).toEqual(['bluebubbles', 'signal', 'telegram', 'whatsapp']);
  });

  it('keeps absent ids absent', () => {
    const bare = parseSessionSource({ platform: 'signal', chatType: 'dm' });
    expect(redactSourceIds(bare)).toEqual(bare);
  });
});
