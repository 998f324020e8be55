// What the conversation decider's specifications start from: a Telegram DM opened on session s1 at a fixed time.
import type { ConversationEvent } from '../../src/events/conversation/conversationEvents.js';
import { conversationDecider } from '../../src/modules/conversations/domain/conversationDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { specification } from './deciderSpecification.js';

export const conversation = specification(conversationDecider);

export const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345', userId: 'u1' });

/** The time `seconds` after the history's start. */
export const at = (seconds: number) => new Date(Date.parse('2026-06-16T09:00:00.000Z') + seconds * 1000).toISOString();

/** The conversation opened and bound to session s1, both at the start. */
export const openOnS1: ConversationEvent[] = [
  { type: 'ConversationOpened', data: { sessionKey: 'agent:main:telegram:dm:12345', origin: source, displayName: null, gatewayId: 'gw-1', at: at(0) } },
  {
    type: 'SessionBound',
    data: { sessionId: 's1', reason: 'new', previousSessionId: null, previousHadActivity: false, origin: source, gatewayId: 'gw-1', at: at(0) },
  },
];
