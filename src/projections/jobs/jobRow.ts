// One row per job: the columns the listing and the ticker's due query filter on, and the folded state they show.
import { EntitySchema } from 'typeorm';
import type { ExistingJob, JobStatus } from '../../modules/jobs/domain/jobDecider.js';

export interface JobRow {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  jobId: string;
  status: Exclude<JobStatus, 'absent'>;
  /** Scheduled (not paused, completed or removed): the ticker looks only at these. */
  enabled: boolean;
  nextRunAt: Date | null;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  revision: number;
  lastPosition: number;
  /** The job stream's fold, by the decider's own evolve: the row cannot drift from GET /v1/jobs/{id}. */
  state: ExistingJob;
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
