// The agent-sessions read model: sessions created by their external id, for the namespace listing.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type SessionStreamEvent, sessionStreamName } from '../../events/session/sessionEvents.js';
import { streamScope } from '../../events/streamScope.js';
import { BatchRows } from '../batchRows.js';
import { type Projection, projectEach } from '../projection.js';
import { AgentSessionEntity } from './agentSessionRow.js';
import { agentSessionRowEventTypes, evolveAgentSessionRow } from './evolveAgentSessionRow.js';

const sessionPrefix = sessionStreamName('');

function sessionOf(event: RecordedEvent): { tenant: string; sessionId: string } | null {
  if (!agentSessionRowEventTypes.has(event.type)) return null;
  // Only a session created by its external id gets a row: other sessions' births are not this read model's.
  if (event.type === 'SessionCreated' && (event.data as { namespace?: unknown }).namespace === undefined) return null;
  const { tenant, name } = streamScope(event.streamName);
  return name.startsWith(sessionPrefix) ? { tenant, sessionId: name.slice(sessionPrefix.length) } : null;
}

const appliesTo = (event: RecordedEvent): boolean => sessionOf(event) !== null;

export const agentSessionsProjection: Projection = {
  name: 'agent-sessions',
  tables: ['agent_sessions'],
  entities: [AgentSessionEntity],
  appliesTo,
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const applied = events.filter(appliesTo);
    if (applied.length === 0) return;
    const rows = new BatchRows(AgentSessionEntity, ['tenant', 'sessionId']);
    await rows.load(
      manager,
      applied.map((event) => sessionOf(event)!),
    );
    await projectEach('agent-sessions', applied, (event) => {
      const key = sessionOf(event)!;
      const row = evolveAgentSessionRow(rows.get(key), { type: event.type, data: event.data } as unknown as SessionStreamEvent, key);
      if (row) rows.set(row);
    });
    await rows.flush(manager);
  },
};
