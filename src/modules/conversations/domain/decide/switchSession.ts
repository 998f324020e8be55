// SwitchSession (/resume): point the conversation back at one of its earlier sessions.
import { NotFoundError } from '../../../../errors/ledgerError.js';
import type { ConversationEvent } from '../../../../events/conversation/conversationEvents.js';
import { bind, conversationNotFound } from '../conversationRules.js';
import type { ConversationState } from '../conversationState.js';

export interface SwitchSession {
  type: 'SwitchSession';
  sessionId: string;
  now: string;
}

export function decideSwitchSession(command: SwitchSession, state: ConversationState): ConversationEvent[] {
  if (state.status === 'absent') throw conversationNotFound();
  if (!state.sessionIds.includes(command.sessionId)) {
    throw new NotFoundError('SESSION_NOT_FOUND', `session ${command.sessionId} is not a session of this conversation`, { sessionId: command.sessionId });
  }
  if (state.sessionId === command.sessionId) return [];
  return [bind(state, command.sessionId, 'switch', false, state.origin, state.gatewayId, command.now)];
}
