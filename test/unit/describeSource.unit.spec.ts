import { describe, expect, it } from 'vitest';
import { describeSource } from '../../src/modules/sessions/domain/describeSource.js';
import { parseSessionSource, type SessionSourceInput } from '../../src/modules/sessions/domain/sessionSourceSchema.js';

const describeOf = (input: SessionSourceInput) => describeSource(parseSessionSource(input));

describe('describeSource', () => {
  it.each<[SessionSourceInput, string]>([
    [{ platform: 'telegram', chatType: 'dm', chatId: '1', userName: 'Alice', userId: '42' }, 'DM with Alice'],
    [{ platform: 'telegram', chatType: 'dm', userId: '42' }, 'DM with 42'],
    [{ platform: 'telegram', chatType: 'dm' }, 'DM with unknown user'],
    [{ platform: 'telegram', chatType: 'group', chatId: '-1', chatName: 'My Group' }, 'group: My Group'],
    [{ platform: 'telegram', chatType: 'group', chatId: '-1', chatName: 'My Group', threadId: '12345' }, 'group: My Group, thread: 12345'],
    [{ platform: 'telegram', chatType: 'group', chatId: '-1' }, 'group: -1'],
    [{ platform: 'slack', chatType: 'channel', chatId: 'C1', chatName: 'general' }, 'channel: general'],
    [{ platform: 'discord', chatType: 'thread', chatId: '9', chatName: 'bug triage' }, 'thread: bug triage'],
    [{ platform: 'discord', chatType: 'thread', chatId: '9', threadId: '9' }, 'thread: 9'],
    [{ platform: 'telegram', chatType: 'dm', chatId: '1', userName: 'Alice', threadId: 't1' }, 'DM with Alice, thread: t1'],
  ])('%o → %s', (input, description) => {
    expect(describeOf(input)).toBe(description);
  });
});
