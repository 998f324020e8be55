// Slot arithmetic over a schedule: the next slot after an instant, the latest slots up to one, whether an instant is a slot.
import { Cron } from 'croner';
import type { Schedule } from '../../../events/job/jobSchedule.js';

/** croner reads the five fields on the job's wall clock; DST gaps run at the first valid time after, repeats run once. */
export function cronFor(expression: string, timeZone: string): Cron {
  return new Cron(expression, { mode: '5-part', timezone: timeZone });
}

/** The first slot strictly after `after`; null when the schedule has none left. */
export function nextRunAfter(schedule: Schedule, after: Date, timeZone: string): Date | null {
  switch (schedule.kind) {
    case 'cron':
      return cronFor(schedule.expression, timeZone).nextRun(after);
    case 'interval': {
      const anchor = Date.parse(schedule.anchor);
      const k = Math.max(1, Math.floor((after.getTime() - anchor) / schedule.everyMs) + 1);
      return new Date(anchor + k * schedule.everyMs);
    }
    case 'once': {
      const at = new Date(schedule.at);
      return at.getTime() > after.getTime() ? at : null;
    }
    default: {
      const unknown: never = schedule;
      return unknown;
    }
  }
}

/** Where a new (or resumed, or rescheduled) job starts: a one-shot at its instant, even one just past; others after now. */
export function firstRunAt(schedule: Schedule, now: Date, timeZone: string): Date | null {
  return schedule.kind === 'once' ? new Date(schedule.at) : nextRunAfter(schedule, now, timeZone);
}

export interface SlotsUpTo {
  /** The latest slots in [from, upTo], at most `max` of them, oldest first. */
  slots: Date[];
  /** Whether [from, upTo] holds slots older than those returned. */
  more: boolean;
}

export function slotsUpTo(schedule: Schedule, from: Date, upTo: Date, timeZone: string, max: number): SlotsUpTo {
  if (upTo.getTime() < from.getTime() || max < 1) return { slots: [], more: false };
  switch (schedule.kind) {
    case 'cron': {
      const cron = cronFor(schedule.expression, timeZone);
      // Usually one or two slots are due: walking forward is cheap. nextRun is strictly after, so start just before `from`.
      const slots: Date[] = [];
      for (let next = cron.nextRun(new Date(from.getTime() - 1)); next && next.getTime() <= upTo.getTime(); next = cron.nextRun(next)) {
        slots.push(next);
        if (slots.length > max) break;
      }
      if (slots.length <= max) return { slots, more: false };
      // A long outage: count back from upTo instead (previousRuns is strictly before its reference, hence + 1 ms).
      const latest = cron.previousRuns(max, new Date(upTo.getTime() + 1));
      return { slots: latest.reverse(), more: true };
    }
    case 'interval': {
      const anchor = Date.parse(schedule.anchor);
      const first = Math.max(1, Math.ceil((from.getTime() - anchor) / schedule.everyMs));
      const last = Math.floor((upTo.getTime() - anchor) / schedule.everyMs);
      if (last < first) return { slots: [], more: false };
      const start = Math.max(first, last - max + 1);
      const slots: Date[] = [];
      for (let k = start; k <= last; k++) slots.push(new Date(anchor + k * schedule.everyMs));
      return { slots, more: start > first };
    }
    case 'once': {
      const at = Date.parse(schedule.at);
      return { slots: at >= from.getTime() && at <= upTo.getTime() ? [new Date(at)] : [], more: false };
    }
    default: {
      const unknown: never = schedule;
      return unknown;
    }
  }
}

/** Whether `at` is one of the schedule's slots (an external scheduler may only fire those). */
export function isSlot(schedule: Schedule, at: Date, timeZone: string): boolean {
  return nextRunAfter(schedule, new Date(at.getTime() - 1), timeZone)?.getTime() === at.getTime();
}
