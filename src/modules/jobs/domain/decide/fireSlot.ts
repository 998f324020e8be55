// FireSlot: an external scheduler fires the slot it names, at most once, never one already passed or not yet due.
import { ConflictError, ValidationError } from '../../../../errors/ledgerError.js';
import type { JobEvent } from '../../../../events/job/jobEvents.js';
import type { HomeChannel } from '../../delivery/fireDelivery.js';
import { isSlot, nextRunAfter, slotsUpTo } from '../../schedule/nextRunAfter.js';
import { alreadyFired, exists, fired, iso, time } from '../jobRules.js';
import { EARLY_FIRE_TOLERANCE_MS, jobNotFound, type JobState, MAX_CATCH_UP_FIRES } from '../jobState.js';

/** An external scheduler names the slot it fires; null: it asked for the next slot and the job had none. */
export interface FireSlot {
  type: 'FireSlot';
  slot: string | null;
  now: string;
  homeChannels?: readonly HomeChannel[];
}

export function decideFireSlot(command: FireSlot, state: JobState): JobEvent[] {
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
