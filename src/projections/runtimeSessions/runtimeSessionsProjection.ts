// The runtime sessions read model: each runtime stream folded onto its row (evolveRuntimeSessionRow), for the watchdog's
// recovery and staleness queries.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type RuntimeSessionEvent, type RuntimeSessionEventType, runtimeSessionStreamName } from '../../events/runtime/runtimeSessionEvents.js';
import { streamScope } from '../../events/streamScope.js';
import { BatchRows } from '../batchRows.js';
import { type Projection, projectEach } from '../projection.js';
import { evolveRuntimeSessionRow } from './evolveRuntimeSessionRow.js';
import { RuntimeSessionEntity } from './runtimeSessionRow.js';

// A record, not an array, so adding an event type without listing it here fails the type check.
export const runtimeSessionEventTypes: Record<RuntimeSessionEventType, true> = {
  RuntimeSessionStarted: true,
  TurnStarted: true,
  RuntimeRunning: true,
  RuntimeProgress: true,
  QuestionAsked: true,
  QuestionAnswered: true,
  ApprovalRequested: true,
  ApprovalResolved: true,
  TurnCompleted: true,
  TurnFailed: true,
  RuntimeInterrupted: true,
  InterruptRequested: true,
};

const runtimePrefix = runtimeSessionStreamName('');

/** The runtime session an event moves, or null. `runtime-binding-…` streams share the prefix; their event types are not in the list. */
function runtimeSessionOf(event: RecordedEvent): { tenant: string; runtimeSessionId: string } | null {
  const { tenant, name } = streamScope(event.streamName);
  if (!name.startsWith(runtimePrefix) || !Object.hasOwn(runtimeSessionEventTypes, event.type)) return null;
  return { tenant, runtimeSessionId: name.slice(runtimePrefix.length) };
}

/** The events this projection writes rows for: `applyBatch` keeps only these, and the runner's transaction is for them. */
const isRuntimeSessionEvent = (event: RecordedEvent): boolean => runtimeSessionOf(event) !== null;

export const runtimeSessionsProjection: Projection = {
  name: 'runtime-sessions',
  tables: ['runtime_sessions'],
  entities: [RuntimeSessionEntity],
  appliesTo: isRuntimeSessionEvent,
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const runtimeEvents = events.filter(isRuntimeSessionEvent);
    if (runtimeEvents.length === 0) return;
    const rows = new BatchRows(RuntimeSessionEntity, ['tenant', 'runtimeSessionId']);
    await rows.load(
      manager,
      runtimeEvents.map((event) => runtimeSessionOf(event)!),
    );
    await projectEach('runtime-sessions', runtimeEvents, (event) => {
      const { tenant, runtimeSessionId } = runtimeSessionOf(event)!;
      const record = evolveRuntimeSessionRow(rows.get({ tenant, runtimeSessionId }), { type: event.type, data: event.data } as unknown as RuntimeSessionEvent);
      if (record === null) return;
      rows.set({ ...record, tenant, lastPosition: event.position });
    });
    await rows.flush(manager);
  },
};
