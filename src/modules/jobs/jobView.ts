// A job as the API shows it: its definition, schedule, run counters and the outcome of its latest run.
import type { DeliveryTarget, JobOrigin, RunStatus } from '../../events/job/jobEvents.js';
import type { ExistingJob, FireRecord, JobState, JobStatus } from './domain/jobDecider.js';
import { describeSchedule } from './schedule/schedule.js';
import type { Schedule, ScheduleKind } from '../../events/job/jobSchedule.js';

export interface JobView {
  id: string;
  name: string;
  description: string | null;
  prompt: string | null;
  skill: string | null;
  /** The schedule as text that parses back to it: a cron expression, `every 30m`, or a one-shot's instant. */
  schedule: string;
  scheduleKind: ScheduleKind;
  /** The stored schedule (an interval's anchor included). */
  scheduleDefinition: Schedule;
  timeZone: string;
  deliverTo: DeliveryTarget | null;
  origin: JobOrigin | null;
  model: string | null;
  repeat: { times: number | null; completed: number };
  enabled: boolean;
  state: Exclude<JobStatus, 'absent'>;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastSlot: string | null;
  lastStatus: RunStatus | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Stored objects come back from jsonb in its own key order; the API shows them in one order. */
function orderedSchedule(schedule: Schedule): Schedule {
  switch (schedule.kind) {
    case 'cron':
      return { kind: 'cron', expression: schedule.expression };
    case 'interval':
      return { kind: 'interval', everyMs: schedule.everyMs, anchor: schedule.anchor };
    case 'once':
      return { kind: 'once', at: schedule.at };
    default: {
      const unknown: never = schedule;
      return unknown;
    }
  }
}

function orderedTarget(target: DeliveryTarget | null): DeliveryTarget | null {
  return target && { platform: target.platform, chatId: target.chatId, threadId: target.threadId };
}

/** What a view is made of: a job's fold, or the jobs read model's details of it (JobDetails), which keep no fires. */
export type JobViewSource = Omit<ExistingJob, 'recentFires' | 'lastReportedSlot'>;

export function toJobView(state: JobViewSource): JobView {
  const schedule = orderedSchedule(state.schedule);
  return {
    id: state.jobId,
    name: state.task.name,
    description: state.task.description,
    prompt: state.task.prompt,
    skill: state.task.skill,
    schedule: describeSchedule(schedule),
    scheduleKind: schedule.kind,
    scheduleDefinition: schedule,
    timeZone: state.timeZone,
    deliverTo: orderedTarget(state.task.deliverTo),
    origin: state.task.origin,
    model: state.task.model,
    repeat: state.repeat,
    enabled: state.status === 'scheduled',
    state: state.status,
    nextRunAt: state.nextRunAt,
    lastRunAt: state.lastRunAt,
    lastSlot: state.lastSlot,
    lastStatus: state.lastStatus,
    lastError: state.lastError,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}

/** Newest first, as a reader of one job wants them. */
export function recentFiresView(state: JobState): FireRecord[] {
  return [...state.recentFires].reverse();
}
