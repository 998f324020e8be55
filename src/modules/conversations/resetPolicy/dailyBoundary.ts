// The most recent daily reset boundary (at_hour:00 on the wall clock of an IANA zone), DST days included.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock of `instant` in the zone, written as if it were UTC (milliseconds). */
function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/**
 * The first instant whose wall clock reads `wall` or later. On a fall-back day an hour happens twice: the first one
 * counts. On a spring-forward day an hour that never happens is passed at the jump itself.
 */
function firstInstantAtOrAfter(wall: number, timeZone: string): number {
  const day = 86_400_000;
  const offsets = new Set([wallClock(wall - day, timeZone) - (wall - day), wallClock(wall + day, timeZone) - (wall + day)]);
  const exact = [...offsets].map((offset) => wall - offset).filter((instant) => wallClock(instant, timeZone) === wall);
  if (exact.length > 0) return Math.min(...exact);
  // In a gap: search the jump between the two offsets' readings (to the second; offsets are whole minutes).
  let low = Math.min(...[...offsets].map((offset) => wall - offset));
  let high = Math.max(...[...offsets].map((offset) => wall - offset));
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (wallClock(middle, timeZone) >= wall) high = middle;
    else low = middle;
  }
  return high;
}

/** The latest at_hour:00 boundary at or before `now`, as the zone's wall clock places it (Hermes' today_reset). */
export function latestDailyBoundary(now: Date, atHour: number, timeZone: string): Date {
  const wall = new Date(wallClock(now.getTime(), timeZone));
  const year = wall.getUTCFullYear();
  const month = wall.getUTCMonth();
  const date = wall.getUTCDate();
  const today = firstInstantAtOrAfter(Date.UTC(year, month, date, atHour), timeZone);
  if (today <= now.getTime()) return new Date(today);
  return new Date(firstInstantAtOrAfter(Date.UTC(year, month, date - 1, atHour), timeZone));
}
