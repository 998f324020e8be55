// Schedule text → Schedule: `*/30 * * * *`, `every 2h`, `in 45m`, or an ISO timestamp (read in the job's time zone without an offset).
import { Cron } from 'croner';
import { ValidationError } from '../../../errors/ledgerError.js';
import { nextRunAfter } from './nextRunAfter.js';
import type { Schedule } from '../../../events/job/jobSchedule.js';

/** A one-shot this far in the past is still taken (it fires at once); further back it is refused. */
export const ONE_SHOT_PAST_TOLERANCE_MS = 120_000;
export const MIN_INTERVAL_MS = 60_000;
export const MAX_DURATION_MS = 366 * 86_400_000;

const unitMs: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d{1,9})\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$/i;
const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-](\d{2}):(\d{2}))?$/i;

function invalid(
  message: string,
  schedule: string,
  code: 'INVALID_SCHEDULE' | 'SCHEDULE_IN_PAST' | 'SCHEDULE_NEVER_RUNS' = 'INVALID_SCHEDULE',
): ValidationError {
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

/**
 * Every field in its range, the day included: `Date` rolls 2027-02-30 over to March 2 and croner throws on month
 * 13, so the calendar is checked here before either reads the text.
 */
function isCalendarTimestamp(match: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second, , offsetHours, offsetMinutes] = match.slice(1).map((part) => Number(part ?? 0));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetHours! <= 23 &&
    offsetMinutes! <= 59
  );
}

function parseTimestamp(match: RegExpExecArray, timeZone: string, schedule: string): Date {
  if (!isCalendarTimestamp(match))
    throw invalid(`"${schedule}" is not a date on the calendar (month 01-12, a day the month has, time up to 23:59:59)`, schedule);
  let at: Date | null;
  try {
    // Without an offset the wall-clock time is the job's time zone's, which croner resolves (DST included).
    at = match[7] ? new Date(schedule) : new Cron(schedule, { timezone: timeZone, allowPast: true }).nextRun(new Date(0));
  } catch {
    at = null;
  }
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
  else {
    const timestamp = ISO_TIMESTAMP.exec(schedule);
    if (timestamp) at = parseTimestamp(timestamp, timeZone, schedule);
  }
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

/**
 * Refuses schedule text no time zone can make valid (INVALID_SCHEDULE), before the job's stream is read for its
 * zone: a malformed request answers its validation error whatever state the job is in.
 */
export function requireReadableSchedule(text: string, now: Date): void {
  try {
    parseSchedule(text, now, 'UTC');
  } catch (error) {
    if (error instanceof ValidationError && error.code === 'INVALID_SCHEDULE') throw error;
  }
}
