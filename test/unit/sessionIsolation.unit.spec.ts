import { describe, expect, it } from 'vitest';
import { sessionKeyFor } from '../../src/modules/sessions/domain/sessionKey.js';
import { isolatesParticipant, isSharedMultiUserSession } from '../../src/modules/sessions/domain/sessionIsolation.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';

const dm = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '1', userId: 'u' });
const group = parseSessionSource({ platform: 'telegram', chatType: 'group', chatId: '-1', userId: 'u' });
const topic = parseSessionSource({ platform: 'telegram', chatType: 'group', chatId: '-1', threadId: '7', userId: 'u' });
const discordThread = parseSessionSource({ platform: 'discord', chatType: 'thread', chatId: '9', userId: 'u' });

const flagSets = [
  { groupSessionsPerUser: true, threadSessionsPerUser: true },
  { groupSessionsPerUser: true, threadSessionsPerUser: false },
  { groupSessionsPerUser: false, threadSessionsPerUser: true },
  { groupSessionsPerUser: false, threadSessionsPerUser: false },
];

describe('isSharedMultiUserSession', () => {
  it.each(flagSets)('a DM is never shared (%o)', (flags) => {
    expect(isSharedMultiUserSession(dm, flags)).toBe(false);
  });

  it.each(flagSets)('a group, and a thread-typed chat without a thread id, is shared exactly when groupSessionsPerUser is off (%o)', (flags) => {
    expect(isSharedMultiUserSession(group, flags)).toBe(!flags.groupSessionsPerUser);
    expect(isSharedMultiUserSession(discordThread, flags)).toBe(!flags.groupSessionsPerUser);
  });

  it.each(flagSets)('a thread is shared exactly when threadSessionsPerUser is off (%o)', (flags) => {
    expect(isSharedMultiUserSession(topic, flags)).toBe(!flags.threadSessionsPerUser);
  });

  it('defaults: groups isolated, threads shared', () => {
    expect(isSharedMultiUserSession(group)).toBe(false);
    expect(isSharedMultiUserSession(topic)).toBe(true);
  });
});

describe('isolatesParticipant agrees with the session key', () => {
  it.each(flagSets.flatMap((flags) => [dm, group, topic, discordThread].map((source) => [source, flags] as const)))('%o with %o', (source, flags) => {
    expect(sessionKeyFor(source, flags).endsWith(':u')).toBe(isolatesParticipant(source, flags));
  });
});

describe('where the shared note and the key part ways', () => {
  it('a thread with only threadSessionsPerUser on has one key for all users, yet is not called shared', () => {
    const flags = { groupSessionsPerUser: false, threadSessionsPerUser: true };
    expect(isolatesParticipant(topic, flags)).toBe(false);
    expect(isSharedMultiUserSession(topic, flags)).toBe(false);
  });

  it.each(flagSets.filter((f) => !(f.threadSessionsPerUser && !f.groupSessionsPerUser)))(
    'everywhere else a non-DM session is shared exactly when its key has no participant (%o)',
    (flags) => {
      for (const source of [group, topic, discordThread]) {
        expect(isSharedMultiUserSession(source, flags)).toBe(!isolatesParticipant(source, flags));
      }
    },
  );
});
