// A job's state: a union by status, what every status holds, and the look-ups the deciders and the routes share.
import { NotFoundError } from '../../../errors/ledgerError.js';
import type { FireTrigger, JobTask, RunStatus } from '../../../events/job/jobEvents.js';
import type { Schedule } from '../../../events/job/jobSchedule.js';

export type JobStatus = 'absent' | 'scheduled' | 'paused' | 'completed' | 'removed';

export interface FireRecord {
  fireId: string;
  slot: string;
  trigger: FireTrigger;
  firedAt: string;
  status: RunStatus | 'pending';
  error: string | null;
  reportedAt: string | null;
}

/** What every job state holds, absent or not. */
interface JobStateFields {
  task: JobTask;
  timeZone: string;
  repeat: { times: number | null; completed: number };
  /** Null while paused, completed or removed. */
  nextRunAt: string | null;
  /** When the latest fire happened, and the slot it fired. Kept across removal, so no slot fires twice. */
  lastRunAt: string | null;
  lastSlot: string | null;
  lastStatus: RunStatus | null;
  lastError: string | null;
  /** Slot of the fire whose report set lastStatus: an older fire's late report does not overwrite a newer one's. */
  lastReportedSlot: string | null;
  /** The most recent fires, oldest first: the ones a run report may name. */
  recentFires: FireRecord[];
}

/** A stream with no JobScheduled (yet). */
export interface AbsentJob extends JobStateFields {
  status: 'absent';
  jobId: null;
  schedule: null;
  createdAt: null;
  updatedAt: null;
}

/** What JobScheduled set stays set, removal included. */
interface ScheduledJobFields extends JobStateFields {
  jobId: string;
  schedule: Schedule;
  createdAt: string;
  updatedAt: string;
}

/** A job the API shows and the decider acts on. */
export interface LiveJob extends ScheduledJobFields {
  status: 'scheduled' | 'paused' | 'completed';
}

/** Removed: it never fires again, and a JobScheduled may re-create it (keeping the slots it fired). */
export interface RemovedJob extends ScheduledJobFields {
  status: 'removed';
}

export type ExistingJob = LiveJob | RemovedJob;

/** A union by status, like the session's: every variant holds the same keys in the same order (initialJobState). */
export type JobState = AbsentJob | ExistingJob;

export const RECENT_FIRES_KEPT = 50;
/** Catch-up `all` fires at most this many missed slots, the latest ones; older ones are skipped. */
export const MAX_CATCH_UP_FIRES = 100;
/** An external scheduler may fire a slot this much before it is due (clock skew between machines). */
export const EARLY_FIRE_TOLERANCE_MS = 120_000;

const emptyTask = (): JobTask => ({ name: '', description: null, prompt: null, skill: null, deliverTo: null, origin: null, model: null });

export const initialJobState = (): JobState => ({
  status: 'absent',
  jobId: null,
  task: emptyTask(),
  schedule: null,
  timeZone: 'UTC',
  repeat: { times: null, completed: 0 },
  nextRunAt: null,
  lastRunAt: null,
  lastSlot: null,
  lastStatus: null,
  lastError: null,
  lastReportedSlot: null,
  recentFires: [],
  createdAt: null,
  updatedAt: null,
});

export interface JobChanges extends Partial<JobTask> {
  repeatTimes?: number | null;
}

/** One fire per slot, so the slot names the fire: `fire_20260101T080000Z`. */
export function fireIdFor(slot: string): string {
  return `fire_${slot.replace(/[-:]/g, '').replace('.000Z', 'Z')}`;
}

export function jobNotFound(jobId?: string | null): NotFoundError {
  return new NotFoundError('JOB_NOT_FOUND', jobId ? `no job ${jobId}` : 'no such job', jobId ? { jobId } : undefined);
}

/** The job a command acted on: decideJob refuses an absent one, so this throws only for a job never scheduled. */
export function existingJob(state: JobState, jobId: string): ExistingJob {
  if (state.status === 'absent') throw jobNotFound(jobId);
  return state;
}
