// What a conversation's events ask of its sessions: the rule shared by requests and the Hermes import.
import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../src/events/conversation/conversationEvents.js';
import { sessionFollowUpsOf } from '../../src/modules/conversations/sessionFollowUps.js';

const origin = { platform: 'telegram', chatType: 'dm', chatId: '1', isBot: false, roleAuthorized: false } as const;
const at = '2026-12-02T10:00:00.000Z';
const KEY = 'agent:main:telegram:dm:1';

function bound(reason: 'new' | 'reset' | 'switch' | 'suspended' | 'forced' | 'resume_expired', previousSessionId: string | null): ConversationEvent {
  return { type: 'SessionBound', data: { sessionId: 's2', reason, previousSessionId, previousHadActivity: false, origin, gatewayId: 'g', at } };
}

describe('session follow-ups of a conversation event', () => {
  it('a first binding creates the session and ends nothing', () => {
    expect(sessionFollowUpsOf(KEY, bound('new', null))).toEqual([
      { sessionId: 's2', command: { type: 'CreateSession', sessionId: 's2', sessionKey: KEY, origin, reason: 'new', now: at } },
    ]);
  });

  it('a reset creates the new session and ends the old one with the reason reset', () => {
    expect(
      sessionFollowUpsOf(KEY, bound('reset', 's1')).map(({ sessionId, command }) => [sessionId, command.type, 'reason' in command ? command.reason : null]),
    ).toEqual([
      ['s2', 'CreateSession', 'reset'],
      ['s1', 'EndSession', 'reset'],
    ]);
  });

  it('a new binding over a session nobody ended ends it as forced', () => {
    expect(sessionFollowUpsOf(KEY, bound('new', 's1'))[1]).toEqual({ sessionId: 's1', command: { type: 'EndSession', reason: 'forced', now: at } });
  });

  it('a switch reopens the session switched to instead of creating it', () => {
    expect(sessionFollowUpsOf(KEY, bound('switch', 's1')).map(({ sessionId, command }) => [sessionId, command.type])).toEqual([
      ['s2', 'ReopenSession'],
      ['s1', 'EndSession'],
    ]);
  });

  it('a binding to the session already bound ends nothing', () => {
    expect(sessionFollowUpsOf(KEY, bound('switch', 's2'))).toHaveLength(1);
  });

  it('other events ask nothing of the sessions', () => {
    expect(sessionFollowUpsOf(KEY, { type: 'ConversationTouched', data: { gatewayId: 'g', at } })).toEqual([]);
  });
});
