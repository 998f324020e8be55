// ScheduleJob: a new job (or one removed, re-created), with its first run; paused from the start when not enabled.
import { ConflictError, ValidationError } from '../../../../errors/ledgerError.js';
import type { JobEvent, JobTask } from '../../../../events/job/jobEvents.js';
import type { Schedule } from '../../../../events/job/jobSchedule.js';
import { firstRunAt } from '../../schedule/nextRunAfter.js';
import { exists, iso, requirePromptOrSkill } from '../jobRules.js';
import type { JobState } from '../jobState.js';

export interface ScheduleJob {
  type: 'ScheduleJob';
  jobId: string;
  task: JobTask;
  schedule: Schedule;
  timeZone: string;
  repeatTimes: number | null;
  enabled: boolean;
  now: string;
}

export function decideScheduleJob(command: ScheduleJob, state: JobState): JobEvent[] {
  // What the request says is checked before what the stream holds.
  requirePromptOrSkill(command.task);
  if (exists(state)) throw new ConflictError('JOB_EXISTS', `job ${command.jobId} already exists`, { jobId: command.jobId });
  const next = firstRunAt(command.schedule, new Date(command.now), command.timeZone);
  if (!next) throw new ValidationError('the schedule has no run left', undefined, 'SCHEDULE_NEVER_RUNS');
  const scheduled: JobEvent = {
    type: 'JobScheduled',
    data: {
      jobId: command.jobId,
      task: command.task,
      schedule: command.schedule,
      timeZone: command.timeZone,
      repeatTimes: command.repeatTimes,
      nextRunAt: iso(next),
      at: command.now,
    },
  };
  return command.enabled ? [scheduled] : [scheduled, { type: 'JobPaused', data: { at: command.now } }];
}
