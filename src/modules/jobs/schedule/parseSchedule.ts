// Schedule text → Schedule: `*/30 * * * *`, `every 2h`, `in 45m`, or an ISO timestamp (read in the job's time zone without an offset).
import { Cron } from 'croner';
import { ValidationError } from '../../../errors/ledgerError.js';
import { nextRunAfter } from './nextRunAfter.js';
import type { Schedule } from './schedule.js';

/** A one-shot this far in the past is still taken (it fires at once); further back it is refused. */
export const ONE_SHOT_PAST_TOLERANCE_MS = 120_000;
export const MIN_INTERVAL_MS = 60_000;
export const MAX_DURATION_MS = 366 * 86_400_000;

const unitMs: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d{1,9})\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$/i;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/i;
const HAS_OFFSET = /(Z|[+-]\d{2}:\d{2})$/i;

function invalid(message: string, schedule: string, code: 'INVALID_SCHEDULE' | 'SCHEDULE_IN_PAST' | 'SCHEDULE_NEVER_RUNS' = 'INVALID_SCHEDULE'): ValidationError {
  return new ValidationError(message, { schedule }, code);
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

export function validTimeZone(timeZone: string): string {
  if (!isValidTimeZone(timeZone)) throw new ValidationError(`"${timeZone}" is not an IANA time zone`, { timeZone }, 'INVALID_TIME_ZONE');
  return timeZone;
}

function parseDuration(text: string, schedule: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw invalid(`"${schedule}": a duration is a number and a unit (s, m, h, d), e.g. 30m`, schedule);
  const milliseconds = Number(match[1]) * unitMs[match[2]!.charAt(0).toLowerCase()]!;
  if (milliseconds > MAX_DURATION_MS) throw invalid(`"${schedule}": durations are at most 366 days`, schedule);
  return milliseconds;
}

function parseTimestamp(text: string, timeZone: string, schedule: string): Date {
  // Without an offset the wall-clock time is the job's time zone's, which croner resolves (DST included).
  const at = HAS_OFFSET.test(text) ? new Date(text) : new Cron(text, { timezone: timeZone, allowPast: true }).nextRun(new Date(0));
  if (!at || Number.isNaN(at.getTime())) throw invalid(`"${schedule}" is not a valid timestamp`, schedule);
  return at;
}

/** `now` resolves `in …` and anchors intervals; the time zone reads cron fields and offset-less timestamps. */
export function parseSchedule(text: string, now: Date, timeZone: string): Schedule {
  const schedule = text.trim().replace(/\s+/g, ' ');
  validTimeZone(timeZone);
  const lower = schedule.toLowerCase();
  if (lower.startsWith('every ')) {
    const everyMs = parseDuration(schedule.slice(6), schedule);
    if (everyMs < MIN_INTERVAL_MS) throw invalid(`"${schedule}": intervals are at least one minute`, schedule);
    return { kind: 'interval', everyMs, anchor: now.toISOString() };
  }
  let at: Date | undefined;
  if (lower.startsWith('in ')) at = new Date(now.getTime() + parseDuration(schedule.slice(3), schedule));
  else if (ISO_TIMESTAMP.test(schedule)) at = parseTimestamp(schedule, timeZone, schedule);
  if (at) {
    if (at.getTime() < now.getTime() - ONE_SHOT_PAST_TOLERANCE_MS) {
      throw invalid(`"${schedule}" is more than ${ONE_SHOT_PAST_TOLERANCE_MS / 1000} s in the past`, schedule, 'SCHEDULE_IN_PAST');
    }
    return { kind: 'once', at: at.toISOString() };
  }
  if (schedule.split(' ').length !== 5) {
    throw invalid(`"${schedule}" is neither a 5-field cron expression, "every <duration>", "in <duration>" nor an ISO timestamp`, schedule);
  }
  let next: Date | null;
  try {
    next = nextRunAfter({ kind: 'cron', expression: schedule }, now, timeZone);
  } catch (error) {
    throw invalid(`"${schedule}": ${(error as Error).message.replace(/^CronPattern: /, '')}`, schedule);
  }
  if (!next) throw invalid(`"${schedule}" never matches a date`, schedule, 'SCHEDULE_NEVER_RUNS');
  return { kind: 'cron', expression: schedule };
}
