// The jobs read model: each job stream folded onto its row (evolveJobRow), for the listing and the ticker's due query.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type JobEvent, type JobEventType, jobStreamName } from '../../events/job/jobEvents.js';
import { streamScope } from '../../events/streamScope.js';
import { BatchRows } from '../batchRows.js';
import { type Projection, projectEach } from '../projection.js';
import { evolveJobRow } from './evolveJobRow.js';
import { JobEntity } from './jobRow.js';

// A record, not an array, so adding an event type without listing it here fails the type check.
export const jobEventTypes: Record<JobEventType, true> = {
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
      const record = evolveJobRow(rows.get({ tenant, jobId }), { type: event.type, data: event.data } as unknown as JobEvent);
      if (record === null) return;
      rows.set({ ...record, tenant, revision: event.revision, lastPosition: event.position });
    });
    await rows.flush(manager);
  },
};
