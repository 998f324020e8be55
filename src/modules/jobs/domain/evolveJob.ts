// A job's fold: each event onto the state it follows.
import { unknownEventType } from '../../../events/decider.js';
import type { JobEvent } from '../../../events/job/jobEvents.js';
import { time } from './jobRules.js';
import { type ExistingJob, type FireRecord, initialJobState, type JobState, RECENT_FIRES_KEPT } from './jobState.js';

export function evolveJob(state: ExistingJob, event: JobEvent): ExistingJob;
export function evolveJob(state: JobState, event: JobEvent): JobState;
export function evolveJob(state: JobState, event: JobEvent): JobState {
  if (event.type === 'JobScheduled') {
    const { data } = event;
    return {
      ...initialJobState(),
      // A re-created job keeps the slots it fired: at most once holds for the stream, not one incarnation.
      lastRunAt: state.lastRunAt,
      lastSlot: state.lastSlot,
      status: 'scheduled',
      jobId: data.jobId,
      task: data.task,
      schedule: data.schedule,
      timeZone: data.timeZone,
      repeat: { times: data.repeatTimes, completed: 0 },
      nextRunAt: data.nextRunAt,
      createdAt: data.at,
      updatedAt: data.at,
    };
  }
  // Every other event follows JobScheduled in its stream (decideJob writes nothing else for an absent job).
  if (state.status === 'absent') return state;
  return evolveExistingJob(state, event);
}

function evolveExistingJob(state: ExistingJob, event: Exclude<JobEvent, { type: 'JobScheduled' }>): ExistingJob {
  switch (event.type) {
    case 'JobUpdated': {
      const { repeatTimes, ...task } = event.data.changes;
      return {
        ...state,
        task: { ...state.task, ...task },
        repeat: repeatTimes === undefined ? state.repeat : { ...state.repeat, times: repeatTimes },
        updatedAt: event.data.at,
      };
    }
    case 'JobRescheduled': {
      const { schedule, timeZone, nextRunAt, at } = event.data;
      const status = state.status === 'completed' && nextRunAt ? 'scheduled' : state.status;
      return { ...state, schedule, timeZone, nextRunAt, status, updatedAt: at };
    }
    case 'JobPaused':
      return { ...state, status: 'paused', nextRunAt: null, updatedAt: event.data.at };
    case 'JobResumed':
      return { ...state, status: event.data.nextRunAt ? 'scheduled' : 'completed', nextRunAt: event.data.nextRunAt, updatedAt: event.data.at };
    case 'JobRemoved':
      return { ...state, status: 'removed', nextRunAt: null, updatedAt: event.data.at };
    case 'JobFired': {
      const { data } = event;
      const fire: FireRecord = {
        fireId: data.fireId,
        slot: data.slot,
        trigger: data.trigger,
        firedAt: data.firedAt,
        status: 'pending',
        error: null,
        reportedAt: null,
      };
      return {
        ...state,
        status: data.completed ? 'completed' : state.status,
        nextRunAt: data.nextRunAt,
        lastRunAt: data.firedAt,
        lastSlot: data.slot,
        repeat: { ...state.repeat, completed: state.repeat.completed + 1 },
        recentFires: [...state.recentFires, fire].slice(-RECENT_FIRES_KEPT),
        updatedAt: data.firedAt,
      };
    }
    case 'JobSlotsSkipped':
      return { ...state, status: event.data.completed ? 'completed' : state.status, nextRunAt: event.data.nextRunAt, updatedAt: event.data.at };
    case 'JobRunReported': {
      const { data } = event;
      const newest = state.lastReportedSlot === null || time(data.slot) >= time(state.lastReportedSlot);
      return {
        ...state,
        recentFires: state.recentFires.map((fire) =>
          fire.fireId === data.fireId ? { ...fire, status: data.status, error: data.error, reportedAt: data.at } : fire,
        ),
        ...(newest ? { lastStatus: data.status, lastError: data.error, lastReportedSlot: data.slot } : {}),
        updatedAt: data.at,
      };
    }
    default:
      return unknownEventType(event, state);
  }
}
