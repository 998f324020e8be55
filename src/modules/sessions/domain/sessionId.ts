// Session ids: `YYYYMMDD_HHMMSS_<8 hex>`, UTC so they sort by creation time whatever the server's zone.
import { randomBytes } from 'node:crypto';

const SESSION_ID = /^(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})_[0-9a-f]{8}$/;
const HEX8 = /^[0-9a-f]{8}$/;

/** The default randomness; tests pass their own suffix to newSessionId instead. */
export function randomSessionIdSuffix(): string {
  return randomBytes(4).toString('hex');
}

export function newSessionId(now: Date, randomHex8: string): string {
  if (!HEX8.test(randomHex8)) throw new RangeError(`session id suffix must be 8 lowercase hex digits, got "${randomHex8}"`);
  const year = now.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) throw new RangeError('session id time must fall in years 0000-9999');
  const two = (n: number) => String(n).padStart(2, '0');
  const date = `${String(year).padStart(4, '0')}${two(now.getUTCMonth() + 1)}${two(now.getUTCDate())}`;
  const time = `${two(now.getUTCHours())}${two(now.getUTCMinutes())}${two(now.getUTCSeconds())}`;
  return `${date}_${time}_${randomHex8}`;
}

/** True only for ids newSessionId can produce: right shape and a real calendar date and time. */
export function isSessionId(value: string): boolean {
  const match = SESSION_ID.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second);
  return (
    at.getUTCFullYear() === year &&
    at.getUTCMonth() === month - 1 &&
    at.getUTCDate() === day &&
    at.getUTCHours() === hour &&
    at.getUTCMinutes() === minute &&
    at.getUTCSeconds() === second
  );
}
