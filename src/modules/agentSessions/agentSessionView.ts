// What the agent-session and item routes answer.
import type { ExistingSession } from '../sessions/domain/sessionState.js';
import type { AgentSessionName } from './commands/createAgentSession.js';
import type { LiveItem } from './items/liveItems.js';

export function agentSessionView(state: ExistingSession, name: AgentSessionName, revision: number, position: number) {
  return {
    sessionId: state.sessionId,
    namespace: name.namespace,
    externalId: name.externalId,
    agentName: state.agentName,
    metadata: state.metadata,
    status: state.status,
    itemCount: state.itemCount,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    revision,
    position,
  };
}

export function itemView(item: LiveItem) {
  return { id: item.id, index: item.index, item: item.item, at: item.at };
}
