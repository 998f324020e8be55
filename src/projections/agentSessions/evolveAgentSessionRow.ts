// The agent-sessions read model's own fold: a row from the session events it keeps, without the write side's state.
import type { SessionStreamEvent } from '../../events/session/sessionEvents.js';
import type { AgentSessionRow } from './agentSessionRow.js';

/** The event types the row follows; the rest leave it as it is. */
export const agentSessionRowEventTypes = new Set([
  'SessionCreated',
  'ItemAppended',
  'ItemPopped',
  'ItemsCleared',
  'RolledBack',
  'SessionEnded',
  'SessionReopened',
  'SessionDestroyed',
]);

/** The row after `event`; null while the session is not one created by its external id. */
export function evolveAgentSessionRow(
  row: AgentSessionRow | null,
  event: SessionStreamEvent,
  key: { tenant: string; sessionId: string },
): AgentSessionRow | null {
  if (event.type === 'SessionCreated') {
    const { data } = event;
    if (data.namespace === undefined || data.externalId === undefined) return null;
    const at = new Date(data.at);
    return {
      ...key,
      namespace: data.namespace,
      externalId: data.externalId,
      agentName: data.agentName ?? null,
      metadata: data.metadata ?? {},
      status: 'active',
      itemCount: data.startingState?.itemCount ?? 0,
      createdAt: at,
      updatedAt: at,
    };
  }
  if (row === null) return null;
  switch (event.type) {
    case 'ItemAppended':
      return { ...row, itemCount: event.data.position + 1, updatedAt: new Date(event.data.at) };
    case 'ItemPopped':
      return { ...row, itemCount: event.data.position, updatedAt: new Date(event.data.at) };
    case 'ItemsCleared':
      return { ...row, itemCount: 0, updatedAt: new Date(event.data.at) };
    case 'RolledBack':
      return { ...row, itemCount: event.data.restored.itemCount ?? 0, updatedAt: new Date(event.data.at) };
    case 'SessionEnded':
      return { ...row, status: 'ended', updatedAt: new Date(event.data.at) };
    case 'SessionReopened':
      return { ...row, status: 'active', updatedAt: new Date(event.data.at) };
    case 'SessionDestroyed':
      return { ...row, status: 'destroyed', updatedAt: new Date(event.data.at) };
    default:
      return row;
  }
}
