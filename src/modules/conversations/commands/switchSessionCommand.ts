// SwitchSession as POST /v1/conversations/{key}/switch asks for it: never to a destroyed session.
import type { Attempt } from '../../../events/attemptCommand.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import type { StreamStateStore } from '../../../events/streamStateStore.js';
import { sessionDecider, sessionDestroyed } from '../../sessions/domain/sessionDecider.js';
import type { OpenConversation } from '../domain/conversationDecider.js';
import type { SwitchSession } from '../domain/decide/switchSession.js';

export function switchSessionCommand(streams: StreamStateStore, tenant: string | undefined, sessionId: string) {
  return async ({ now }: Attempt<OpenConversation>): Promise<SwitchSession> => {
    // A destroyed session keeps its history for audit but never comes back to life.
    const target = await streams.load(sessionStreamName(sessionId, tenant), sessionDecider);
    if (target.state.status === 'destroyed') throw sessionDestroyed(sessionId);
    return { type: 'SwitchSession', sessionId, now };
  };
}
