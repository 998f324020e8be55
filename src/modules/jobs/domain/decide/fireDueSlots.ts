// FireDueSlots: the ticker fires what is due now, each slot at most once, applying the catch-up policy to slots later
// than the grace.
import type { CatchUpPolicy, JobEvent } from '../../../../events/job/jobEvents.js';
import type { HomeChannel } from '../../delivery/fireDelivery.js';
import { nextRunAfter, slotsUpTo } from '../../schedule/nextRunAfter.js';
import { fired, iso, time } from '../jobRules.js';
import { type JobState, MAX_CATCH_UP_FIRES } from '../jobState.js';

export interface FireDueSlots {
  type: 'FireDueSlots';
  now: string;
  catchUp: CatchUpPolicy;
  onTimeGraceMs: number;
  homeChannels?: readonly HomeChannel[];
}

export function decideFireDueSlots(command: FireDueSlots, state: JobState): JobEvent[] {
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
