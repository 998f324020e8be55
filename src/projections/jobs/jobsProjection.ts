// The jobs read model: each job stream folded with the job decider's evolve, for the listing and the ticker's due query.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type JobEvent, type JobEventType, jobStreamName } from '../../events/job/jobEvents.js';
import { streamScope } from '../../events/streamScope.js';
import { evolveJob, initialJobState } from '../../modules/jobs/domain/jobDecider.js';
import { BatchRows } from '../batchRows.js';
import { type Projection, projectEach } from '../projection.js';
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

/** The job an event moves, or null for events of other streams and types. */
function jobOf(event: RecordedEvent): { tenant: string; jobId: string } | null {
  const { tenant, name } = streamScope(event.streamName);
  if (!name.startsWith(jobPrefix) || !Object.hasOwn(jobEventTypes, event.type)) return null;
  return { tenant, jobId: name.slice(jobPrefix.length) };
}

/** The events this projection writes rows for: `applyBatch` keeps only these, and the runner's transaction is for them. */
const isJobEvent = (event: RecordedEvent): boolean => jobOf(event) !== null;

export const jobsProjection: Projection = {
  name: 'jobs',
  tables: ['jobs'],
  entities: [JobEntity],
  appliesTo: isJobEvent,
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const jobEvents = events.filter(isJobEvent);
    if (jobEvents.length === 0) return;
    const rows = new BatchRows(JobEntity, ['tenant', 'jobId']);
    await rows.load(
      manager,
      jobEvents.map((event) => jobOf(event)!),
    );
    await projectEach('jobs', jobEvents, (event) => {
      const { tenant, jobId } = jobOf(event)!;
      const existing = rows.get({ tenant, jobId });
      const state = evolveJob(existing?.state ?? initialJobState(), { type: event.type, data: event.data } as unknown as JobEvent);
      if (state.status === 'absent') return;
      rows.set({
        tenant,
        jobId,
        status: state.status,
        enabled: state.status === 'scheduled',
        nextRunAt: state.nextRunAt ? new Date(state.nextRunAt) : null,
        name: state.task.name,
        createdAt: new Date(state.createdAt),
        updatedAt: new Date(state.updatedAt),
        revision: event.revision,
        lastPosition: event.position,
        state,
      });
    });
    await rows.flush(manager);
  },
};
