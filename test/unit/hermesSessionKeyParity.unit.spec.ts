// Session keys byte for byte Hermes': the cases of Hermes' own build_session_key tests, and ids with ':', '%', spaces and non-ASCII.
import { describe, expect, it } from 'vitest';
import { type SessionKeyOptions, sessionKeyFor } from '../../src/modules/sessions/domain/sessionKey.js';
import { earlierSessionKeysFor } from '../../src/modules/sessions/domain/sessionKeyAliases.js';
import { parseSessionSource, type SessionSourceInput } from '../../src/modules/sessions/domain/sessionSourceSchema.js';

interface Case {
  name: string;
  source: SessionSourceInput;
  options?: SessionKeyOptions;
  /** Hermes' key: what the service answers by default. */
  hermes: string;
  /** The key with SESSION_KEY_ESCAPE_IDS=true (the same when no id holds ':' or '%'). */
  escaped?: string;
}

const shared = { groupSessionsPerUser: false };
const threadPerUser = { threadSessionsPerUser: true };

// Hermes' tests of build_session_key (tests/gateway/test_session.py), source for source.
const hermesCases: Case[] = [
  { name: 'telegram DM includes the chat id', source: { platform: 'telegram', chatType: 'dm', chatId: '99' }, hermes: 'agent:main:telegram:dm:99' },
  { name: 'distinct DM chat ids', source: { platform: 'telegram', chatType: 'dm', chatId: '100' }, hermes: 'agent:main:telegram:dm:100' },
  {
    name: 'DM without chat id falls back to the user id',
    source: { platform: 'telegram', chatType: 'dm', userId: 'jordan' },
    hermes: 'agent:main:telegram:dm:jordan',
  },
  { name: 'DM without chat id, another user', source: { platform: 'telegram', chatType: 'dm', userId: 'dima' }, hermes: 'agent:main:telegram:dm:dima' },
  {
    name: 'DM without chat id prefers user_id_alt',
    source: { platform: 'telegram', chatType: 'dm', userId: 'primary', userIdAlt: 'alt' },
    hermes: 'agent:main:telegram:dm:alt',
  },
  {
    name: 'DM without chat id or user falls back to the thread',
    source: { platform: 'telegram', chatType: 'dm', threadId: '7' },
    hermes: 'agent:main:telegram:dm:7',
  },
  { name: 'DM without any identifier hits the platform sink', source: { platform: 'telegram', chatType: 'dm' }, hermes: 'agent:main:telegram:dm' },
  {
    name: 'DM without chat id: the participant comes before the thread',
    source: { platform: 'telegram', chatType: 'dm', userId: '555', threadId: '9' },
    hermes: 'agent:main:telegram:dm:555:9',
  },
  {
    name: 'DM thread keeps chat id then thread, never the user',
    source: { platform: 'telegram', chatType: 'dm', chatId: '99', threadId: 'topic-1', userId: '42' },
    hermes: 'agent:main:telegram:dm:99:topic-1',
  },
  {
    name: 'discord group includes the chat id',
    source: { platform: 'discord', chatType: 'group', chatId: 'guild-123' },
    hermes: 'agent:main:discord:group:guild-123',
  },
  {
    name: 'group isolated per user (alice)',
    source: { platform: 'discord', chatType: 'group', chatId: 'guild-123', userId: 'alice' },
    hermes: 'agent:main:discord:group:guild-123:alice',
  },
  {
    name: 'group isolated per user (bob)',
    source: { platform: 'discord', chatType: 'group', chatId: 'guild-123', userId: 'bob' },
    hermes: 'agent:main:discord:group:guild-123:bob',
  },
  {
    name: 'group shared when isolation is off',
    source: { platform: 'discord', chatType: 'group', chatId: 'guild-123', userId: 'alice' },
    options: shared,
    hermes: 'agent:main:discord:group:guild-123',
  },
  {
    name: 'forum thread includes the thread id',
    source: { platform: 'telegram', chatType: 'group', chatId: '-1002285219667', threadId: '17585' },
    hermes: 'agent:main:telegram:group:-1002285219667:17585',
  },
  {
    name: 'threads are shared by default',
    source: { platform: 'telegram', chatType: 'group', chatId: '-1002285219667', threadId: '17585', userId: 'alice' },
    hermes: 'agent:main:telegram:group:-1002285219667:17585',
  },
  {
    name: 'thread_sessions_per_user isolates in threads',
    source: { platform: 'telegram', chatType: 'group', chatId: '-1002285219667', threadId: '17585', userId: '42' },
    options: threadPerUser,
    hermes: 'agent:main:telegram:group:-1002285219667:17585:42',
  },
  {
    name: 'non-thread group stays per user',
    source: { platform: 'telegram', chatType: 'group', chatId: '-1002285219667', userId: 'alice' },
    hermes: 'agent:main:telegram:group:-1002285219667:alice',
  },
  {
    name: 'discord thread shared by default',
    source: { platform: 'discord', chatType: 'thread', chatId: 'guild-123', threadId: 'thread-456', userId: 'alice' },
    hermes: 'agent:main:discord:thread:guild-123:thread-456',
  },
  {
    name: 'a thread-typed chat with no thread id is keyed like a group',
    source: { platform: 'discord', chatType: 'thread', chatId: '999', userId: 'alice' },
    hermes: 'agent:main:discord:thread:999:alice',
  },
  {
    name: 'whatsapp DM uses the canonical id',
    source: { platform: 'whatsapp', chatType: 'dm', chatId: '15551234567@s.whatsapp.net' },
    hermes: 'agent:main:whatsapp:dm:15551234567',
  },
  {
    name: 'whatsapp group participant canonicalised',
    source: { platform: 'whatsapp', chatType: 'group', chatId: '120363000000000000@g.us', userId: '15551234567@s.whatsapp.net' },
    hermes: 'agent:main:whatsapp:group:120363000000000000@g.us:15551234567',
  },
  {
    name: 'whatsapp shared group untouched by canonicalisation',
    source: { platform: 'whatsapp', chatType: 'group', chatId: '120363000000000000@g.us', userId: '999999999999999@lid' },
    options: shared,
    hermes: 'agent:main:whatsapp:group:120363000000000000@g.us',
  },
  {
    name: 'slack workspace (scope) comes before the chat id',
    source: { platform: 'slack', chatType: 'channel', chatId: 'C123', guildId: 'T1', userId: 'U1' },
    hermes: 'agent:main:slack:channel:T1:C123:U1',
  },
  {
    name: 'discord guild scope is not part of the key',
    source: { platform: 'discord', chatType: 'group', chatId: '789', guildId: 'G1', userId: '42' },
    hermes: 'agent:main:discord:group:789:42',
  },
];

// Ids Hermes keeps as they are; escaping (SESSION_KEY_ESCAPE_IDS=true) makes them unambiguous.
const idCases: Case[] = [
  {
    name: 'signal uuid participant in a DM without chat id',
    source: { platform: 'signal', chatType: 'dm', userIdAlt: 'uuid:abcd-ef', userId: '+15550001' },
    hermes: 'agent:main:signal:dm:uuid:abcd-ef',
    escaped: 'agent:main:signal:dm:uuid%3Aabcd-ef',
  },
  {
    name: 'signal group chat id',
    source: { platform: 'signal', chatType: 'group', chatId: 'group:c2lnbmFs', userIdAlt: 'uuid:1234' },
    hermes: 'agent:main:signal:group:group:c2lnbmFs:uuid:1234',
    escaped: 'agent:main:signal:group:group%3Ac2lnbmFs:uuid%3A1234',
  },
  {
    name: 'matrix room and user ids',
    source: { platform: 'matrix', chatType: 'group', chatId: '!room:example.org', userId: '@alice:example.org' },
    hermes: 'agent:main:matrix:group:!room:example.org:@alice:example.org',
    escaped: 'agent:main:matrix:group:!room%3Aexample.org:@alice%3Aexample.org',
  },
  {
    name: "'%' in an id",
    source: { platform: 'web', chatType: 'dm', chatId: '50%off' },
    hermes: 'agent:main:web:dm:50%off',
    escaped: 'agent:main:web:dm:50%25off',
  },
  {
    name: 'an id that looks escaped already',
    source: { platform: 'web', chatType: 'dm', chatId: 'a%3Ab' },
    hermes: 'agent:main:web:dm:a%3Ab',
    escaped: 'agent:main:web:dm:a%253Ab',
  },
  {
    name: 'spaces in ids',
    source: { platform: 'web', chatType: 'group', chatId: 'team room', threadId: 'topic one', userId: 'jane doe' },
    options: threadPerUser,
    hermes: 'agent:main:web:group:team room:topic one:jane doe',
  },
  {
    name: 'non-ASCII ids',
    source: { platform: 'telegram', chatType: 'group', chatId: 'чат-1', userId: '用户🙂' },
    hermes: 'agent:main:telegram:group:чат-1:用户🙂',
  },
  {
    name: "non-ASCII with ':'",
    source: { platform: 'web', chatType: 'dm', chatId: 'é:ü' },
    hermes: 'agent:main:web:dm:é:ü',
    escaped: 'agent:main:web:dm:é%3Aü',
  },
];

const keyOf = (testCase: Case, escapeIds: boolean) => sessionKeyFor(parseSessionSource(testCase.source), { ...testCase.options, escapeIds });

describe("session keys: Hermes' build_session_key cases", () => {
  it.each(hermesCases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    expect(keyOf(testCase, false)).toBe(testCase.hermes);
    // None of these ids holds ':' or '%': escaping changes nothing.
    expect(keyOf(testCase, true)).toBe(testCase.hermes);
  });
});

describe("session keys: ids with ':', '%', spaces and non-ASCII", () => {
  it.each(idCases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    expect(keyOf(testCase, false)).toBe(testCase.hermes);
    expect(keyOf(testCase, true)).toBe(testCase.escaped ?? testCase.hermes);
  });
});

describe('earlier keys of a source (aliases resolve keeps using)', () => {
  it("are the other escaping setting's key for an id with ':'", () => {
    const source = parseSessionSource({ platform: 'matrix', chatType: 'group', chatId: '!room:example.org' });
    expect(earlierSessionKeysFor(source, shared)).toEqual(['agent:main:matrix:group:!room%3Aexample.org']);
    expect(earlierSessionKeysFor(source, { ...shared, escapeIds: true })).toEqual(['agent:main:matrix:group:!room:example.org']);
  });

  it("include the ledger's key from before Hermes parity: a DM's thread before its participant, a thread-typed chat shared", () => {
    expect(earlierSessionKeysFor(parseSessionSource({ platform: 'telegram', chatType: 'dm', userId: '555', threadId: '9' }))).toEqual([
      'agent:main:telegram:dm:9:555',
    ]);
    expect(earlierSessionKeysFor(parseSessionSource({ platform: 'discord', chatType: 'thread', chatId: '999', userId: 'alice' }))).toEqual([
      'agent:main:discord:thread:999',
    ]);
    expect(earlierSessionKeysFor(parseSessionSource({ platform: 'slack', chatType: 'channel', chatId: 'C1', guildId: 'T1', userId: 'U1' }))).toEqual([
      'agent:main:slack:channel:C1:U1',
    ]);
  });

  it('are none for ordinary ids, so resolve looks nowhere else', () => {
    for (const testCase of hermesCases.filter(
      (candidate) =>
        ![
          'DM without chat id: the participant comes before the thread',
          'a thread-typed chat with no thread id is keyed like a group',
          'slack workspace (scope) comes before the chat id',
        ].includes(candidate.name),
    )) {
      expect(earlierSessionKeysFor(parseSessionSource(testCase.source), testCase.options)).toEqual([]);
    }
  });
});
