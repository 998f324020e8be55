// UpdateJob: edit the task, the schedule or the repeats, pause or resume: only what differs is written.
import { ConflictError, ValidationError } from '../../../../errors/ledgerError.js';
import type { JobEvent } from '../../../../events/job/jobEvents.js';
import type { Schedule } from '../../../../events/job/jobSchedule.js';
import { firstRunAt, nextRunAfter } from '../../schedule/nextRunAfter.js';
import { sameSchedule } from '../../schedule/schedule.js';
import { evolveJob } from '../evolveJob.js';
import { canonicalJson, exhausted, exists, iso, requirePromptOrSkill, time } from '../jobRules.js';
import { type ExistingJob, type JobChanges, jobNotFound, type JobState } from '../jobState.js';

export interface UpdateJob {
  type: 'UpdateJob';
  changes: JobChanges;
  reschedule?: { schedule: Schedule; timeZone: string };
  enabled?: boolean;
  now: string;
}

export function decideUpdateJob(command: UpdateJob, state: JobState): JobEvent[] {
  if (!exists(state)) throw jobNotFound(state.jobId);
  const events: JobEvent[] = [];
  const now = new Date(command.now);
  const changes: JobChanges = {};
  for (const [key, value] of Object.entries(command.changes) as Array<[keyof JobChanges, unknown]>) {
    if (value === undefined) continue;
    const current = key === 'repeatTimes' ? state.repeat.times : state.task[key];
    if (canonicalJson(current) !== canonicalJson(value)) Object.assign(changes, { [key]: value });
  }
  if (Object.keys(changes).length > 0) {
    requirePromptOrSkill({ ...state.task, ...changes });
    events.push({ type: 'JobUpdated', data: { changes, at: command.now } });
  }
  let current: ExistingJob = state;
  for (const event of events) current = evolveJob(current, event);
  const reschedule = command.reschedule;
  if (reschedule && !(sameSchedule(reschedule.schedule, current.schedule) && reschedule.timeZone === current.timeZone)) {
    // A paused job keeps no next run; resuming computes it from the new schedule.
    const next = current.status === 'paused' || exhausted(current.repeat) ? null : firstRunAt(reschedule.schedule, now, reschedule.timeZone);
    if (!next && current.status !== 'paused' && !exhausted(current.repeat))
      throw new ValidationError('the schedule has no run left', undefined, 'SCHEDULE_NEVER_RUNS');
    const rescheduled: JobEvent = { type: 'JobRescheduled', data: { ...reschedule, nextRunAt: next ? iso(next) : null, at: command.now } };
    events.push(rescheduled);
    current = evolveJob(current, rescheduled);
  }
  if (command.enabled === false && current.status === 'scheduled') {
    events.push({ type: 'JobPaused', data: { at: command.now } });
  } else if (command.enabled === true && current.status === 'paused') {
    events.push({ type: 'JobResumed', data: { nextRunAt: resumeAt(current, now), at: command.now } });
  } else if (command.enabled === true && current.status === 'completed') {
    throw new ConflictError('JOB_COMPLETED', `job ${state.jobId} has no run left; give it a new schedule (or more repeats and a schedule) to run again`, {
      jobId: state.jobId,
    });
  }
  return events;
}

/** Slots that passed while paused stay unfired; a one-shot not yet fired runs once resumed, however late. */
function resumeAt(state: ExistingJob, now: Date): string | null {
  if (exhausted(state.repeat)) return null;
  const { schedule } = state;
  if (schedule.kind === 'once') return state.lastSlot !== null && time(state.lastSlot) >= time(schedule.at) ? null : schedule.at;
  const next = nextRunAfter(schedule, now, state.timeZone);
  return next ? iso(next) : null;
}
