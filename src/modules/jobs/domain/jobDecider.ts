// The job decider: define, edit, pause/resume, remove, fire a slot at most once, record the run's outcome.
import { type HomeChannel, resolveFireDelivery } from '../delivery/fireDelivery.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../errors/ledgerError.js';
import { type Decider, unknownEventType } from '../../../events/decider.js';
import type { CatchUpPolicy, FireTrigger, JobEvent, JobTask, RunStatus } from '../../../events/job/jobEvents.js';
import { firstRunAt, isSlot, nextRunAfter, slotsUpTo } from '../schedule/nextRunAfter.js';
import { sameSchedule } from '../schedule/schedule.js';
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

export type JobCommand =
  | { type: 'ScheduleJob'; jobId: string; task: JobTask; schedule: Schedule; timeZone: string; repeatTimes: number | null; enabled: boolean; now: string }
  | { type: 'UpdateJob'; changes: JobChanges; reschedule?: { schedule: Schedule; timeZone: string }; enabled?: boolean; now: string }
  | { type: 'RemoveJob'; now: string }
  /** The ticker: fire what is due now, applying the catch-up policy to slots later than the grace. */
  | { type: 'FireDueSlots'; now: string; catchUp: CatchUpPolicy; onTimeGraceMs: number; homeChannels?: readonly HomeChannel[] }
  /** An external scheduler names the slot it fires; null: it asked for the next slot and the job had none. */
  | { type: 'FireSlot'; slot: string | null; now: string; homeChannels?: readonly HomeChannel[] }
  | { type: 'ReportRun'; fireId: string; status: RunStatus; error: string | null; now: string };

const time = (iso: string) => Date.parse(iso);
const iso = (date: Date) => date.toISOString();

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

function alreadyFired(jobId: string, slot: string, lastSlot: string): ConflictError {
  const message = time(slot) === time(lastSlot) ? `slot ${slot} has already fired` : `a later slot (${lastSlot}) has already fired`;
  return new ConflictError('ALREADY_FIRED', message, { jobId, slot, lastSlot });
}

function requirePromptOrSkill(task: JobTask): void {
  if (!task.prompt && !task.skill) throw new ValidationError('a job needs a prompt or a skill', undefined, 'JOB_NEEDS_PROMPT_OR_SKILL');
}

/** JSON with sorted keys: jsonb hands objects back in its own key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1))) : inner,
  );
}

const exists = (state: JobState): state is LiveJob => state.status !== 'absent' && state.status !== 'removed';
const exhausted = (repeat: JobState['repeat']) => repeat.times !== null && repeat.completed >= repeat.times;

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

export function decideJob(command: JobCommand, state: JobState): JobEvent[] {
  switch (command.type) {
    case 'ScheduleJob': {
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
    case 'UpdateJob':
      return decideUpdate(command, state);
    case 'RemoveJob':
      if (!exists(state)) throw jobNotFound(state.jobId);
      return [{ type: 'JobRemoved', data: { at: command.now } }];
    case 'FireDueSlots':
      return decideDueFires(command, state);
    case 'FireSlot':
      return decideExternalFire(command, state);
    case 'ReportRun': {
      if (!exists(state)) throw jobNotFound(state.jobId);
      const fire = state.recentFires.find((candidate) => candidate.fireId === command.fireId);
      if (!fire) {
        throw new NotFoundError('FIRE_NOT_FOUND', `job ${state.jobId} has no recent fire ${command.fireId}`, { jobId: state.jobId, fireId: command.fireId });
      }
      if (fire.status !== 'pending') {
        // A gateway retrying the same report is answered as if it were the first.
        if (fire.status === command.status && fire.error === command.error) return [];
        throw new ConflictError('RUN_ALREADY_REPORTED', `fire ${command.fireId} was already reported as ${fire.status}`, {
          fireId: command.fireId,
          status: fire.status,
        });
      }
      return [
        {
          type: 'JobRunReported',
          data: { jobId: state.jobId, fireId: fire.fireId, slot: fire.slot, status: command.status, error: command.error, at: command.now },
        },
      ];
    }
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

function decideUpdate(command: Extract<JobCommand, { type: 'UpdateJob' }>, state: JobState): JobEvent[] {
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

function decideDueFires(command: Extract<JobCommand, { type: 'FireDueSlots' }>, state: JobState): JobEvent[] {
  if (state.status !== 'scheduled' || state.nextRunAt === null || time(state.nextRunAt) > time(command.now)) return [];
  const now = new Date(command.now);
  const { schedule, nextRunAt: dueSince } = state;
  const due = slotsUpTo(schedule, new Date(dueSince), now, state.timeZone, MAX_CATCH_UP_FIRES + 1);
  const after = nextRunAfter(schedule, now, state.timeZone);
  if (due.slots.length === 0) {
    // nextRunAt is not a slot of the schedule (it cannot be, short of a hand-edited stream): move on without firing.
    return [
      {
        type: 'JobSlotsSkipped',
        data: { firstSlot: state.nextRunAt, lastSlot: state.nextRunAt, count: 0, nextRunAt: after ? iso(after) : null, completed: !after, at: command.now },
      },
    ];
  }
  const latest = due.slots[due.slots.length - 1]!;
  const onTime = now.getTime() - latest.getTime() <= command.onTimeGraceMs;
  let chosen: Date[];
  switch (command.catchUp) {
    case 'once':
      chosen = [latest];
      break;
    case 'all':
      chosen = due.slots.slice(-MAX_CATCH_UP_FIRES);
      break;
    case 'none':
      chosen = onTime ? [latest] : [];
      break;
    default: {
      const unknown: never = command.catchUp;
      return unknown;
    }
  }
  const remaining = state.repeat.times === null ? Number.POSITIVE_INFINITY : state.repeat.times - state.repeat.completed;
  if (remaining <= 0) chosen = [];
  else if (chosen.length > remaining) chosen = chosen.slice(-remaining);
  if (chosen.length === 0) {
    const completed = !after || remaining <= 0;
    return [
      {
        type: 'JobSlotsSkipped',
        data: {
          firstSlot: iso(due.slots[0]!),
          lastSlot: iso(latest),
          count: due.slots.length,
          nextRunAt: completed ? null : iso(after!),
          completed,
          at: command.now,
        },
      },
    ];
  }
  const skipped = due.slots.length - chosen.length;
  return chosen.map((slot, index) => {
    const last = index === chosen.length - 1;
    const completed = last && (!after || chosen.length >= remaining);
    const nextRunAt = last ? (completed ? null : iso(after!)) : iso(chosen[index + 1]!);
    return fired(state, dueSince, iso(slot), 'ticker', last ? skipped : 0, nextRunAt, completed, command.now, command.homeChannels ?? []);
  });
}

function decideExternalFire(command: Extract<JobCommand, { type: 'FireSlot' }>, state: JobState): JobEvent[] {
  if (!exists(state)) throw jobNotFound(state.jobId);
  if (command.slot !== null && state.lastSlot !== null && time(command.slot) <= time(state.lastSlot))
    throw alreadyFired(state.jobId, command.slot, state.lastSlot);
  if (state.status === 'paused') throw new ConflictError('JOB_PAUSED', `job ${state.jobId} is paused`, { jobId: state.jobId });
  const remaining = state.repeat.times === null ? Number.POSITIVE_INFINITY : state.repeat.times - state.repeat.completed;
  if (command.slot === null || state.status === 'completed' || state.nextRunAt === null || remaining <= 0) {
    throw new ConflictError('JOB_COMPLETED', `job ${state.jobId} has no run left`, { jobId: state.jobId });
  }
  const slot = time(command.slot);
  if (!isSlot(state.schedule, new Date(slot), state.timeZone)) {
    throw new ValidationError(`${command.slot} is not a slot of this job's schedule`, { slot: command.slot, nextRunAt: state.nextRunAt }, 'SLOT_NOT_SCHEDULED');
  }
  if (slot < time(state.nextRunAt)) {
    throw new ConflictError('SLOT_PASSED', `the job has moved past ${command.slot} (paused, rescheduled or skipped); its next slot is ${state.nextRunAt}`, {
      slot: command.slot,
      nextRunAt: state.nextRunAt,
    });
  }
  if (slot > time(command.now) + EARLY_FIRE_TOLERANCE_MS) {
    throw new ConflictError('SLOT_NOT_DUE', `slot ${command.slot} is not due yet`, { slot: command.slot, now: command.now });
  }
  // Slots between nextRunAt and this one, and those between it and now, are left unfired: never a burst.
  const now = new Date(command.now);
  const after = nextRunAfter(state.schedule, new Date(Math.max(slot, now.getTime())), state.timeZone);
  const skipped = slotsUpTo(state.schedule, new Date(state.nextRunAt), new Date(slot - 1), state.timeZone, MAX_CATCH_UP_FIRES).slots.length;
  const completed = !after || remaining <= 1;
  return [
    fired(state, state.nextRunAt, iso(new Date(slot)), 'external', skipped, completed ? null : iso(after!), completed, command.now, command.homeChannels ?? []),
  ];
}

/** `dueSince`: the job's nextRunAt when it fired. */
function fired(
  state: LiveJob,
  dueSince: string,
  slot: string,
  trigger: FireTrigger,
  skippedSlots: number,
  nextRunAt: string | null,
  completed: boolean,
  now: string,
  homeChannels: readonly HomeChannel[],
): JobEvent {
  return {
    type: 'JobFired',
    data: {
      jobId: state.jobId,
      fireId: fireIdFor(slot),
      slot,
      trigger,
      dueSince,
      skippedSlots,
      nextRunAt,
      completed,
      firedAt: now,
      task: state.task,
      delivery: resolveFireDelivery(state.task, homeChannels),
    },
  };
}

export const jobDecider: Decider<JobState, JobCommand, JobEvent> = {
  initialState: initialJobState,
  evolve: evolveJob,
  decide: decideJob,
};
