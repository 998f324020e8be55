// The jobs read model folds a job's events onto its own row: the details the listing shows and the columns the
// listing and the ticker filter on. The job's write-side fold (evolveJob) must agree on every one of them;
// test/unit/jobRowFold.unit.spec.ts checks that over random histories.
import { unknownEventType } from '../../events/decider.js';
import type { JobEvent } from '../../events/job/jobEvents.js';
import type { JobDetails, JobRow } from './jobRow.js';

/** A job's row less what the stream's name and the event's place in the log give. */
export type JobRecord = Omit<JobRow, 'tenant' | 'revision' | 'lastPosition'>;

/** null: no JobScheduled yet, so no row (the decider writes nothing else for a job never scheduled). */
export function evolveJobRow(record: JobRecord | null, event: JobEvent): JobRecord | null {
  const details = evolveJobDetails(record?.state ?? null, event);
  return details && recordOf(details);
}

function recordOf(details: JobDetails): JobRecord {
  return {
    jobId: details.jobId,
    status: details.status,
    enabled: details.status === 'scheduled',
    nextRunAt: details.nextRunAt === null ? null : new Date(details.nextRunAt),
    name: details.task.name,
    createdAt: new Date(details.createdAt),
    updatedAt: new Date(details.updatedAt),
    state: details,
  };
}

function evolveJobDetails(job: JobDetails | null, event: JobEvent): JobDetails | null {
  if (event.type === 'JobScheduled') {
    const { data } = event;
    return {
      status: 'scheduled',
      jobId: data.jobId,
      task: data.task,
      schedule: data.schedule,
      timeZone: data.timeZone,
      repeat: { times: data.repeatTimes, completed: 0 },
      nextRunAt: data.nextRunAt,
      // A re-created job keeps the slots it fired, and only those: its last outcome starts over.
      lastRunAt: job?.lastRunAt ?? null,
      lastSlot: job?.lastSlot ?? null,
      lastStatus: null,
      lastError: null,
      lastReportedSlot: null,
      createdAt: data.at,
      updatedAt: data.at,
    };
  }
  if (job === null) return null;
  switch (event.type) {
    case 'JobUpdated': {
      const { repeatTimes, ...task } = event.data.changes;
      return {
        ...job,
        task: { ...job.task, ...task },
        repeat: repeatTimes === undefined ? job.repeat : { ...job.repeat, times: repeatTimes },
        updatedAt: event.data.at,
      };
    }
    case 'JobRescheduled': {
      const { schedule, timeZone, nextRunAt, at } = event.data;
      const status = job.status === 'completed' && nextRunAt ? 'scheduled' : job.status;
      return { ...job, schedule, timeZone, nextRunAt, status, updatedAt: at };
    }
    case 'JobPaused':
      return { ...job, status: 'paused', nextRunAt: null, updatedAt: event.data.at };
    case 'JobResumed':
      return { ...job, status: event.data.nextRunAt ? 'scheduled' : 'completed', nextRunAt: event.data.nextRunAt, updatedAt: event.data.at };
    case 'JobRemoved':
      return { ...job, status: 'removed', nextRunAt: null, updatedAt: event.data.at };
    case 'JobFired': {
      const { data } = event;
      return {
        ...job,
        status: data.completed ? 'completed' : job.status,
        nextRunAt: data.nextRunAt,
        lastRunAt: data.firedAt,
        lastSlot: data.slot,
        repeat: { ...job.repeat, completed: job.repeat.completed + 1 },
        updatedAt: data.firedAt,
      };
    }
    case 'JobSlotsSkipped':
      return { ...job, status: event.data.completed ? 'completed' : job.status, nextRunAt: event.data.nextRunAt, updatedAt: event.data.at };
    case 'JobRunReported': {
      const { data } = event;
      const newest = job.lastReportedSlot === null || Date.parse(data.slot) >= Date.parse(job.lastReportedSlot);
      return {
        ...job,
        ...(newest ? { lastStatus: data.status, lastError: data.error, lastReportedSlot: data.slot } : {}),
        updatedAt: data.at,
      };
    }
    default:
      return unknownEventType(event, job);
  }
}
