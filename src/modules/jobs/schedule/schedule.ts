// Schedules as text: how a stored schedule reads, and when two are the same.
import type { Schedule } from '../../../events/job/jobSchedule.js';

const units: ReadonlyArray<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** `30m`, `2h`, `90m`: the largest unit that divides the duration evenly. */
export function formatDuration(milliseconds: number): string {
  for (const [unit, size] of units) {
    if (milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

/** The text that would parse back to this schedule (an interval keeps its anchor separately). */
export function describeSchedule(schedule: Schedule): string {
  switch (schedule.kind) {
    case 'cron':
      return schedule.expression;
    case 'interval':
      return `every ${formatDuration(schedule.everyMs)}`;
    case 'once':
      return schedule.at;
    default: {
      const unknown: never = schedule;
      return unknown;
    }
  }
}

export function sameSchedule(a: Schedule, b: Schedule): boolean {
  if (a.kind === 'cron' && b.kind === 'cron') return a.expression === b.expression;
  if (a.kind === 'interval' && b.kind === 'interval') return a.everyMs === b.everyMs && Date.parse(a.anchor) === Date.parse(b.anchor);
  if (a.kind === 'once' && b.kind === 'once') return Date.parse(a.at) === Date.parse(b.at);
  return false;
}
