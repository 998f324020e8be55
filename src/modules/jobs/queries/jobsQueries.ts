// Reads of the jobs read model: the listing (by id, cursor-paginated) and the ticker's due jobs.
import { type DataSource, LessThanOrEqual, MoreThan, Not, type FindOptionsWhere } from 'typeorm';
import { z } from 'zod';
import { opaqueCursorCodec } from '../../../http/opaqueCursor.js';
import { JobEntity, type JobRow } from '../../../projections/jobs/jobRow.js';
import { isJobId } from '../jobId.js';

export interface JobsPage {
  rows: JobRow[];
  /** The last id of this page when another follows. */
  next: string | null;
}

export async function listJobs(
  readModels: DataSource,
  options: { tenant: string | undefined; enabled?: boolean; limit: number; afterJobId?: string },
): Promise<JobsPage> {
  const where: FindOptionsWhere<JobRow> = { tenant: options.tenant ?? '', status: Not('removed') as never };
  if (options.enabled !== undefined) where.enabled = options.enabled;
  if (options.afterJobId !== undefined) where.jobId = MoreThan(options.afterJobId);
  // One more than asked tells whether another page exists.
  const rows = await readModels.getRepository(JobEntity).find({ where, order: { jobId: 'ASC' }, take: options.limit + 1 });
  const page = rows.slice(0, options.limit);
  return { rows: page, next: rows.length > options.limit ? page[page.length - 1]!.jobId : null };
}

export interface DueJob {
  jobId: string;
  tenant?: string;
}

/** Jobs whose next slot has come by `dueBy`, oldest first. The read model may lag: the fire decision reads the stream. */
export async function dueJobs(readModels: DataSource, dueBy: Date, limit: number): Promise<DueJob[]> {
  const rows = await readModels.getRepository(JobEntity).find({
    select: { tenant: true, jobId: true },
    where: { enabled: true, nextRunAt: LessThanOrEqual(dueBy) },
    order: { nextRunAt: 'ASC' },
    take: limit,
  });
  return rows.map((row) => ({ jobId: row.jobId, ...(row.tenant ? { tenant: row.tenant } : {}) }));
}

export interface ScheduledJob extends DueJob {
  nextRunAt: string;
}

/** Every enabled job with its next slot, a page at a time in (tenant, id) order: what an external scheduler should hold. */
export async function scheduledJobs(readModels: DataSource, after: { tenant: string; jobId: string } | null, limit: number): Promise<ScheduledJob[]> {
  const query = readModels
    .getRepository(JobEntity)
    .createQueryBuilder('job')
    .select(['job.tenant', 'job.jobId', 'job.nextRunAt'])
    .where('job.enabled = true AND job.next_run_at IS NOT NULL')
    .orderBy('job.tenant', 'ASC')
    .addOrderBy('job.jobId', 'ASC')
    .limit(limit);
  if (after) query.andWhere('(job.tenant, job.job_id) > (:tenant, :jobId)', after);
  const rows = await query.getMany();
  return rows.map((row) => ({ jobId: row.jobId, nextRunAt: row.nextRunAt!.toISOString(), ...(row.tenant ? { tenant: row.tenant } : {}) }));
}

/** A page of jobs ends at a job id: the next page starts after it. */
const jobsCursor = opaqueCursorCodec(
  z.strictObject({ after: z.string().refine(isJobId) }),
  (jobId: string) => ({ after: jobId }),
  (json) => json.after,
);

export const encodeJobsCursor = (jobId: string): string => jobsCursor.encode(jobId);
export const decodeJobsCursor = (cursor: string): string => jobsCursor.decode(cursor);
