// Timestamps a query compares in the database: PostgreSQL's timestamptz has no year 0, and PGlite's driver cannot
// send a date past 9999, so a date outside years 1-9999 (UTC) is a 400 at the door rather than a database error.
import { z } from 'zod';

const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** Whether the instant lies within years 1-9999, UTC. */
export function isStorableInstant(date: Date): boolean {
  const time = date.getTime();
  return time >= EARLIEST && time <= LATEST;
}

/** An ISO 8601 date-time with an offset (or Z) that the database can hold. */
export const storableTimestamp = z.iso
  .datetime({ offset: true })
  .refine((text) => isStorableInstant(new Date(text)), { message: 'a date-time within years 0001-9999 (UTC)' });
