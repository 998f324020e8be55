// The jobs read model: each job stream folded with the job decider's evolve, for the listing and the ticker's due query.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type JobEvent, type JobEventType, jobStreamName } from '../../events/job/jobEvents.js';
import { evolveJob, initialJobState } from '../../modules/jobs/jobDecider.js';
import { streamScope } from '../../events/streamScope.js';
import type { Projection } from '../projection.js';
import { JobEntity } from './jobRow.js';

// A record, not an array, so adding an event type without listing it here fails the type check.
const jobEventTypes: Record<JobEventType, true> = {
  JobScheduled: true,
  JobUpdated: true,
  JobRescheduled: true,
  JobPaused: true,
  JobResumed: true,
  JobRemoved: true,
  JobFired: true,
  JobSlotsSkipped: true,
  JobRunReported: true,
};

const jobPrefix = jobStreamName('');

export const jobsProjection: Projection = {
  name: 'jobs',
  tables: ['jobs'],
  entities: [JobEntity],
  async apply(event: RecordedEvent, manager: EntityManager) {
    const { tenant, name } = streamScope(event.streamName);
    if (!name.startsWith(jobPrefix) || !Object.hasOwn(jobEventTypes, event.type)) return;
    const jobId = name.slice(jobPrefix.length);
    const repository = manager.getRepository(JobEntity);
    const existing = await repository.findOneBy({ tenant, jobId });
    const state = evolveJob(existing?.state ?? initialJobState(), { type: event.type, data: event.data } as unknown as JobEvent);
    if (state.status === 'absent') return;
    await repository.save({
      tenant,
      jobId,
      status: state.status,
      enabled: state.status === 'scheduled',
      nextRunAt: state.nextRunAt ? new Date(state.nextRunAt) : null,
      name: state.task.name,
      createdAt: new Date(state.createdAt!),
      updatedAt: new Date(state.updatedAt!),
      revision: event.revision,
      lastPosition: event.position,
      state,
    });
  },
};
