// The runtime sessions read model: each runtime stream folded with the decider's evolve, for the watchdog's recovery and staleness queries.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type RuntimeSessionEvent, type RuntimeSessionEventType, runtimeSessionStreamName } from '../../events/runtime/runtimeSessionEvents.js';
import { evolveRuntimeSession, initialRuntimeSessionState } from '../../modules/runtime/runtimeSessionDecider.js';
import { streamScope } from '../../events/streamScope.js';
import type { Projection } from '../projection.js';
import { RuntimeSessionEntity } from './runtimeSessionRow.js';

// A record, not an array, so adding an event type without listing it here fails the type check.
const runtimeSessionEventTypes: Record<RuntimeSessionEventType, true> = {
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
};

const runtimePrefix = runtimeSessionStreamName('');

export const runtimeSessionsProjection: Projection = {
  name: 'runtime-sessions',
  tables: ['runtime_sessions'],
  entities: [RuntimeSessionEntity],
  async apply(event: RecordedEvent, manager: EntityManager) {
    // `runtime-binding-…` streams share the prefix; their event types are not in the list.
    const { tenant, name } = streamScope(event.streamName);
    if (!name.startsWith(runtimePrefix) || !Object.hasOwn(runtimeSessionEventTypes, event.type)) return;
    const runtimeSessionId = name.slice(runtimePrefix.length);
    const repository = manager.getRepository(RuntimeSessionEntity);
    const existing = await repository.findOneBy({ tenant, runtimeSessionId });
    const folded = evolveRuntimeSession(existing?.folded ?? initialRuntimeSessionState(), { type: event.type, data: event.data } as unknown as RuntimeSessionEvent);
    if (folded.status === 'absent') return;
    await repository.save({
      tenant,
      runtimeSessionId,
      sessionKey: folded.sessionKey!,
      provider: folded.provider!,
      model: folded.model!,
      state: folded.status,
      lastWorkerEventAt: folded.lastWorkerEventAt ? new Date(folded.lastWorkerEventAt) : null,
      updatedAt: new Date(folded.updatedAt!),
      lastPosition: event.position,
      folded,
    });
  },
};
