// One row per job: the columns the listing and the ticker's due query filter on, and the job's details the listing shows.
import { EntitySchema } from 'typeorm';
import type { JobTask, RunStatus } from '../../events/job/jobEvents.js';
import type { Schedule } from '../../events/job/jobSchedule.js';

export type JobRowStatus = 'scheduled' | 'paused' | 'completed' | 'removed';

/**
 * What the listing shows of a job (the `state` column): the job's fold less its recent fires, which only
 * GET /v1/jobs/{id} shows, from the stream. `lastReportedSlot` is kept for the fold itself: an older fire's late report
 * does not overwrite a newer one's outcome. The keys and their meaning are the job state's, so a row written when
 * the column held the whole state (recent fires included) reads the same.
 */
export interface JobDetails {
  status: JobRowStatus;
  jobId: string;
  task: JobTask;
  schedule: Schedule;
  timeZone: string;
  repeat: { times: number | null; completed: number };
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastSlot: string | null;
  lastStatus: RunStatus | null;
  lastError: string | null;
  lastReportedSlot: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface JobRow {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  jobId: string;
  status: JobRowStatus;
  /** Scheduled (not paused, completed or removed): the ticker looks only at these. */
  enabled: boolean;
  nextRunAt: Date | null;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  revision: number;
  lastPosition: number;
  state: JobDetails;
}

const bigintAsNumber = { to: (value: number) => value, from: (value: string | number) => Number(value) };

export const JobEntity = new EntitySchema<JobRow>({
  name: 'JobRow',
  tableName: 'jobs',
  columns: {
    tenant: { type: 'text', primary: true },
    jobId: { name: 'job_id', type: 'text', primary: true },
    status: { type: 'text' },
    enabled: { type: 'boolean' },
    nextRunAt: { name: 'next_run_at', type: 'timestamptz', nullable: true },
    name: { type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    revision: { type: 'bigint', transformer: bigintAsNumber },
    lastPosition: { name: 'last_position', type: 'bigint', transformer: bigintAsNumber },
    state: { type: 'jsonb' },
  },
});
