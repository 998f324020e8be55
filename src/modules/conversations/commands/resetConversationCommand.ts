// ResetConversation as POST /v1/conversations/{key}/reset asks for it: a new session id, and whether the current session had any turn.
import type { Attempt } from '../../../events/attemptCommand.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import type { CommandContext } from '../../commandContext.js';
import { sessionDecider } from '../../sessions/domain/sessionDecider.js';
import type { OpenConversation } from '../domain/conversationDecider.js';
import type { ResetConversation } from '../domain/decide/resetConversation.js';

export function resetConversationCommand(commandContext: CommandContext, tenant: string | undefined, displayName: string | undefined) {
  return async ({ now, state }: Attempt<OpenConversation>): Promise<ResetConversation> => {
    const current = state.sessionId === null ? null : await commandContext.streams.load(sessionStreamName(state.sessionId, tenant), sessionDecider);
    return {
      type: 'ResetConversation',
      newSessionId: commandContext.newSessionId(),
      currentSessionHadActivity: current !== null && current.state.turnCount > 0,
      now,
      ...(displayName === undefined ? {} : { displayName }),
    };
  };
}
