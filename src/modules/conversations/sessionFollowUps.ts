// What the sessions must do after a conversation event: the one rule, used by requests and by the Hermes import alike,
// and the session streams a binding opens in the conversation's own append.
import type { ConversationEvent } from '../../events/conversation/conversationEvents.js';
import { type SessionEndReason, type SessionStreamEvent, sessionStreamName } from '../../events/session/sessionEvents.js';
import type { StreamOpenings } from '../../events/streamStateStore.js';
import { type SessionCommand, sessionDecider } from '../sessions/domain/sessionDecider.js';
import type { SessionState } from '../sessions/domain/sessionState.js';

export interface SessionFollowUp {
  /** The session stream the command goes to. */
  sessionId: string;
  command: SessionCommand;
}

/**
 * An expiry ends the expired session with its reason. A binding creates the bound session (or reopens it, on a switch back) and ends the one it replaced, with the
 * binding's reason (`forced` when a new binding replaced a session nobody ended). Every other event asks nothing.
 */
export function sessionFollowUpsOf(sessionKey: string, event: ConversationEvent): SessionFollowUp[] {
  // The reset sweep ends the session now; the binding that follows at the next message finds it ended already.
  if (event.type === 'SessionExpired')
    return [{ sessionId: event.data.sessionId, command: { type: 'EndSession', reason: event.data.reason, now: event.data.at } }];
  if (event.type !== 'SessionBound') return [];
  const { sessionId, previousSessionId, reason, origin, at } = event.data;
  const followUps: SessionFollowUp[] = [
    reason === 'switch'
      ? { sessionId, command: { type: 'ReopenSession', now: at } }
      : { sessionId, command: { type: 'CreateSession', sessionId, sessionKey, origin, reason, now: at } },
  ];
  if (previousSessionId && previousSessionId !== sessionId) {
    const endReason: SessionEndReason = reason === 'new' ? 'forced' : reason;
    followUps.push({ sessionId: previousSessionId, command: { type: 'EndSession', reason: endReason, now: at } });
  }
  return followUps;
}

/**
 * The sessions a binding creates, for the conversation's append to write with it where the store appends to several
 * streams in one transaction (StreamStateStore.handleOpening): a new session then never exists bound but unwritten.
 */
export function sessionsOpenedBy(
  sessionKey: string,
  tenant: string | undefined,
): StreamOpenings<ConversationEvent, SessionState, SessionCommand, SessionStreamEvent> {
  return {
    decider: sessionDecider,
    streamsOpenedBy: (events) =>
      events.flatMap((event) =>
        sessionFollowUpsOf(sessionKey, event)
          .filter(({ command }) => command.type === 'CreateSession')
          .map(({ sessionId, command }) => ({ streamName: sessionStreamName(sessionId, tenant), command })),
      ),
  };
}
