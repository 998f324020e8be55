// Schedule math on fixed dates: cron (ranges, steps, lists), intervals, one-shots, time zones and DST transitions.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors/ledgerError.js';
import { firstRunAt, isSlot, nextRunAfter, slotsUpTo } from '../../src/modules/jobs/schedule/nextRunAfter.js';
import { parseSchedule } from '../../src/modules/jobs/schedule/parseSchedule.js';
import { describeSchedule } from '../../src/modules/jobs/schedule/schedule.js';
import type { Schedule } from '../../src/events/job/jobSchedule.js';

const cron = (expression: string): Schedule => ({ kind: 'cron', expression });
const d = (iso: string) => new Date(iso);

/** The next `count` slots after `from`, each computed from the previous one, as ISO strings. */
function runs(schedule: Schedule, from: string, timeZone: string, count: number): string[] {
  const out: string[] = [];
  let after = d(from);
  for (let index = 0; index < count; index++) {
    const next = nextRunAfter(schedule, after, timeZone);
    if (!next) break;
    out.push(next.toISOString());
    after = next;
  }
  return out;
}

describe('parseSchedule', () => {
  const now = d('2026-03-10T12:00:00.000Z');

  it('takes 5-field cron expressions with ranges, steps and lists, normalising whitespace', () => {
    expect(parseSchedule('*/30 * * * *', now, 'UTC')).toEqual(cron('*/30 * * * *'));
    expect(parseSchedule('  0 8   * * 1-5 ', now, 'America/New_York')).toEqual(cron('0 8 * * 1-5'));
    expect(parseSchedule('0 9,13,17 1-15/2 * *', now, 'UTC')).toEqual(cron('0 9,13,17 1-15/2 * *'));
  });

  it('refuses cron expressions with the wrong number of fields, bad values or no date ever', () => {
    expect(() => parseSchedule('* * * * * *', now, 'UTC')).toThrow(expect.objectContaining({ code: 'INVALID_SCHEDULE' }));
    expect(() => parseSchedule('61 * * * *', now, 'UTC')).toThrow(expect.objectContaining({ code: 'INVALID_SCHEDULE' }));
    expect(() => parseSchedule('0 0 30 2 *', now, 'UTC')).toThrow(expect.objectContaining({ code: 'SCHEDULE_NEVER_RUNS' }));
    expect(() => parseSchedule('tomorrow-ish', now, 'UTC')).toThrow(ValidationError);
  });

  it('takes intervals anchored at now, at least a minute long', () => {
    expect(parseSchedule('every 30m', now, 'UTC')).toEqual({ kind: 'interval', everyMs: 30 * 60_000, anchor: now.toISOString() });
    expect(parseSchedule('every 2h', now, 'UTC')).toEqual({ kind: 'interval', everyMs: 2 * 3_600_000, anchor: now.toISOString() });
    expect(parseSchedule('Every 1 day', now, 'UTC')).toMatchObject({ everyMs: 86_400_000 });
    expect(() => parseSchedule('every 30s', now, 'UTC')).toThrow(expect.objectContaining({ code: 'INVALID_SCHEDULE' }));
    expect(() => parseSchedule('every fortnight', now, 'UTC')).toThrow(expect.objectContaining({ code: 'INVALID_SCHEDULE' }));
  });

  it('resolves `in 45m` against now, and reads ISO timestamps with or without an offset', () => {
    expect(parseSchedule('in 45m', now, 'UTC')).toEqual({ kind: 'once', at: '2026-03-10T12:45:00.000Z' });
    expect(parseSchedule('2026-03-11T09:00:00+01:00', now, 'UTC')).toEqual({ kind: 'once', at: '2026-03-11T08:00:00.000Z' });
    expect(parseSchedule('2026-03-11T09:00:00Z', now, 'Asia/Tokyo')).toEqual({ kind: 'once', at: '2026-03-11T09:00:00.000Z' });
    // Without an offset the wall clock is the job's time zone's: 09:00 in Tokyo (UTC+9) is 00:00 UTC.
    expect(parseSchedule('2026-03-11T09:00', now, 'Asia/Tokyo')).toEqual({ kind: 'once', at: '2026-03-11T00:00:00.000Z' });
    // Before and after Europe/Berlin's March transition: +01:00, then +02:00.
    expect(parseSchedule('2026-03-28T10:00:00', now, 'Europe/Berlin')).toEqual({ kind: 'once', at: '2026-03-28T09:00:00.000Z' });
    expect(parseSchedule('2026-03-30T10:00:00', now, 'Europe/Berlin')).toEqual({ kind: 'once', at: '2026-03-30T08:00:00.000Z' });
  });

  it('refuses timestamps that are not on the calendar instead of rolling them over, with or without an offset', () => {
    for (const text of [
      '2027-13-01T10:00',
      '2027-00-10T10:00',
      '2027-02-30T10:00',
      '2027-02-29T10:00',
      '2027-04-31T10:00Z',
      '2027-01-00T10:00',
      '2027-01-01T24:00',
      '2027-01-01T10:60Z',
      '2027-01-01T10:00:60',
      '2027-01-01T10:00+24:00',
      '2027-01-01T10:00+01:60',
    ]) {
      expect(() => parseSchedule(text, now, 'Europe/Berlin'), text).toThrow(expect.objectContaining({ code: 'INVALID_SCHEDULE', status: 400 }));
    }
    // The edges that do exist are taken: a leap day, the last second of a year, a month's 31st.
    expect(parseSchedule('2028-02-29T10:00Z', now, 'UTC')).toEqual({ kind: 'once', at: '2028-02-29T10:00:00.000Z' });
    expect(parseSchedule('2027-12-31T23:59:59Z', now, 'UTC')).toEqual({ kind: 'once', at: '2027-12-31T23:59:59.000Z' });
    expect(parseSchedule('2027-03-31T10:00', now, 'UTC')).toEqual({ kind: 'once', at: '2027-03-31T10:00:00.000Z' });
  });

  it('takes a one-shot up to 120 s in the past and refuses one further back', () => {
    expect(parseSchedule('2026-03-10T11:58:00Z', now, 'UTC')).toEqual({ kind: 'once', at: '2026-03-10T11:58:00.000Z' });
    expect(() => parseSchedule('2026-03-10T11:57:59Z', now, 'UTC')).toThrow(expect.objectContaining({ code: 'SCHEDULE_IN_PAST', status: 400 }));
  });

  it('refuses time zones that are not IANA names', () => {
    expect(() => parseSchedule('0 8 * * *', now, 'Mars/Olympus_Mons')).toThrow(expect.objectContaining({ code: 'INVALID_TIME_ZONE' }));
  });

  it('describes a schedule as text that parses back to it', () => {
    expect(describeSchedule(parseSchedule('every 90m', now, 'UTC'))).toBe('every 90m');
    expect(describeSchedule(parseSchedule('every 2h', now, 'UTC'))).toBe('every 2h');
    expect(describeSchedule(parseSchedule('in 45m', now, 'UTC'))).toBe('2026-03-10T12:45:00.000Z');
    expect(describeSchedule(parseSchedule('0 8 * * 1-5', now, 'UTC'))).toBe('0 8 * * 1-5');
  });
});

describe('nextRunAfter: cron', () => {
  it('steps every 30 minutes, strictly after the given instant', () => {
    expect(runs(cron('*/30 * * * *'), '2026-01-01T00:00:00Z', 'UTC', 3)).toEqual([
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T01:30:00.000Z',
    ]);
    expect(runs(cron('*/30 * * * *'), '2026-01-01T00:29:59.999Z', 'UTC', 1)).toEqual(['2026-01-01T00:30:00.000Z']);
  });

  it('runs 0 8 * * 1-5 on weekdays only', () => {
    // 2026-01-02 is a Friday: the next runs skip the weekend.
    expect(runs(cron('0 8 * * 1-5'), '2026-01-02T09:00:00Z', 'UTC', 3)).toEqual([
      '2026-01-05T08:00:00.000Z',
      '2026-01-06T08:00:00.000Z',
      '2026-01-07T08:00:00.000Z',
    ]);
  });

  it('takes lists and ranges with steps', () => {
    expect(runs(cron('15 9,17 * * *'), '2026-01-01T10:00:00Z', 'UTC', 3)).toEqual([
      '2026-01-01T17:15:00.000Z',
      '2026-01-02T09:15:00.000Z',
      '2026-01-02T17:15:00.000Z',
    ]);
    expect(runs(cron('0 0-6/3 * * *'), '2026-01-01T00:00:00Z', 'UTC', 3)).toEqual([
      '2026-01-01T03:00:00.000Z',
      '2026-01-01T06:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ]);
  });

  it('reads the fields on the job time zone wall clock', () => {
    expect(nextRunAfter(cron('0 8 * * *'), d('2026-01-01T00:00:00Z'), 'Asia/Kolkata')?.toISOString()).toBe('2026-01-01T02:30:00.000Z');
  });

  describe('across DST transitions', () => {
    it('runs a daily 02:30 in Europe/Berlin at 03:00 on the March day 02:30 does not exist, then at 02:30 CEST', () => {
      // 2026-03-29 02:00 CET jumps to 03:00 CEST.
      expect(runs(cron('30 2 * * *'), '2026-03-27T12:00:00Z', 'Europe/Berlin', 4)).toEqual([
        '2026-03-28T01:30:00.000Z', // 02:30 CET
        '2026-03-29T01:00:00.000Z', // 03:00 CEST: the first valid time after the gap
        '2026-03-30T00:30:00.000Z', // 02:30 CEST
        '2026-03-31T00:30:00.000Z',
      ]);
    });

    it('runs a daily 02:30 in Europe/Berlin once on the October day 02:30 happens twice', () => {
      // 2026-10-25 03:00 CEST falls back to 02:00 CET.
      expect(runs(cron('30 2 * * *'), '2026-10-24T12:00:00Z', 'Europe/Berlin', 3)).toEqual([
        '2026-10-25T00:30:00.000Z',
        '2026-10-26T01:30:00.000Z',
        '2026-10-27T01:30:00.000Z',
      ]);
    });

    it('moves 0 8 * * 1-5 in America/New_York from 12:00 to 13:00 UTC across the November transition', () => {
      // 2026-11-01 (a Sunday) 02:00 EDT falls back to 01:00 EST.
      expect(runs(cron('0 8 * * 1-5'), '2026-10-29T00:00:00Z', 'America/New_York', 4)).toEqual([
        '2026-10-29T12:00:00.000Z',
        '2026-10-30T12:00:00.000Z',
        '2026-11-02T13:00:00.000Z',
        '2026-11-03T13:00:00.000Z',
      ]);
    });

    it('runs */30 on both occurrences of the repeated hour and skips the missing one', () => {
      expect(runs(cron('*/30 * * * *'), '2026-10-25T00:00:00Z', 'Europe/Berlin', 4)).toEqual([
        '2026-10-25T00:30:00.000Z', // 02:30 CEST
        '2026-10-25T01:00:00.000Z', // 02:00 CET
        '2026-10-25T01:30:00.000Z', // 02:30 CET
        '2026-10-25T02:00:00.000Z',
      ]);
      expect(runs(cron('*/30 * * * *'), '2026-03-29T00:30:00Z', 'Europe/Berlin', 2)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-29T01:30:00.000Z']); // 03:00, 03:30 CEST
    });
  });
});

describe('nextRunAfter: intervals and one-shots', () => {
  const every2h: Schedule = { kind: 'interval', everyMs: 2 * 3_600_000, anchor: '2026-03-29T00:10:00.000Z' };

  it('keeps intervals in absolute time, DST or not', () => {
    expect(runs(every2h, '2026-03-29T00:10:00Z', 'Europe/Berlin', 3)).toEqual([
      '2026-03-29T02:10:00.000Z',
      '2026-03-29T04:10:00.000Z',
      '2026-03-29T06:10:00.000Z',
    ]);
  });

  it('finds the next interval slot from any instant, never the anchor itself', () => {
    expect(nextRunAfter(every2h, d('2026-03-29T05:00:00Z'), 'UTC')?.toISOString()).toBe('2026-03-29T06:10:00.000Z');
    expect(nextRunAfter(every2h, d('2026-03-29T06:10:00Z'), 'UTC')?.toISOString()).toBe('2026-03-29T08:10:00.000Z');
    expect(nextRunAfter(every2h, d('2026-03-28T00:00:00Z'), 'UTC')?.toISOString()).toBe('2026-03-29T02:10:00.000Z');
  });

  it('gives a one-shot its instant once, then nothing', () => {
    const once: Schedule = { kind: 'once', at: '2026-05-01T10:00:00.000Z' };
    expect(nextRunAfter(once, d('2026-05-01T09:59:59Z'), 'UTC')?.toISOString()).toBe('2026-05-01T10:00:00.000Z');
    expect(nextRunAfter(once, d('2026-05-01T10:00:00Z'), 'UTC')).toBeNull();
    // A just-past one-shot still starts at its instant (it fires at once).
    expect(firstRunAt(once, d('2026-05-01T10:01:00Z'), 'UTC')?.toISOString()).toBe('2026-05-01T10:00:00.000Z');
  });
});

describe('slotsUpTo and isSlot', () => {
  it('lists the latest slots in a window, oldest first, and says whether older ones were left out', () => {
    const result = slotsUpTo(cron('*/10 * * * *'), d('2026-01-01T00:10:00Z'), d('2026-01-01T00:55:00Z'), 'UTC', 3);
    expect(result.slots.map((slot) => slot.toISOString())).toEqual(['2026-01-01T00:30:00.000Z', '2026-01-01T00:40:00.000Z', '2026-01-01T00:50:00.000Z']);
    expect(result.more).toBe(true);
    const all = slotsUpTo(cron('*/10 * * * *'), d('2026-01-01T00:10:00Z'), d('2026-01-01T00:50:00Z'), 'UTC', 10);
    expect(all.slots).toHaveLength(5);
    expect(all.more).toBe(false);
    const interval: Schedule = { kind: 'interval', everyMs: 600_000, anchor: '2026-01-01T00:00:00.000Z' };
    expect(slotsUpTo(interval, d('2026-01-01T00:10:00Z'), d('2026-01-01T00:55:00Z'), 'UTC', 10).slots.map((slot) => slot.toISOString())).toEqual([
      '2026-01-01T00:10:00.000Z',
      '2026-01-01T00:20:00.000Z',
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T00:40:00.000Z',
      '2026-01-01T00:50:00.000Z',
    ]);
  });

  it('agrees with nextRunAfter on every slot, across DST transitions (the ticker relies on both)', () => {
    const cases: Array<[string, string, string, string]> = [
      ['30 2 * * *', 'Europe/Berlin', '2026-03-26T00:00:00Z', '2026-04-01T00:00:00Z'],
      ['30 2 * * *', 'Europe/Berlin', '2026-10-22T00:00:00Z', '2026-10-28T00:00:00Z'],
      ['*/30 * * * *', 'Europe/Berlin', '2026-10-24T22:00:00Z', '2026-10-25T04:00:00Z'],
      ['*/30 * * * *', 'Europe/Berlin', '2026-03-28T22:00:00Z', '2026-03-29T04:00:00Z'],
      ['0 8 * * 1-5', 'America/New_York', '2026-10-28T00:00:00Z', '2026-11-05T00:00:00Z'],
    ];
    for (const [expression, timeZone, from, to] of cases) {
      const iterated = runs(cron(expression), new Date(Date.parse(from) - 1).toISOString(), timeZone, 500).filter((slot) => slot <= new Date(to).toISOString());
      const listed = slotsUpTo(cron(expression), d(from), d(to), timeZone, 500).slots.map((slot) => slot.toISOString());
      expect(listed, `${expression} in ${timeZone}`).toEqual(iterated);
      for (const slot of listed) expect(isSlot(cron(expression), d(slot), timeZone)).toBe(true);
    }
  });

  it('tells slots of the schedule from other instants', () => {
    expect(isSlot(cron('0 8 * * 1-5'), d('2026-01-05T08:00:00Z'), 'UTC')).toBe(true);
    expect(isSlot(cron('0 8 * * 1-5'), d('2026-01-04T08:00:00Z'), 'UTC')).toBe(false); // a Sunday
    expect(isSlot(cron('0 8 * * 1-5'), d('2026-01-05T08:00:01Z'), 'UTC')).toBe(false);
    const interval: Schedule = { kind: 'interval', everyMs: 600_000, anchor: '2026-01-01T00:00:00.000Z' };
    expect(isSlot(interval, d('2026-01-01T00:20:00Z'), 'UTC')).toBe(true);
    expect(isSlot(interval, d('2026-01-01T00:00:00Z'), 'UTC')).toBe(false);
    expect(isSlot(interval, d('2026-01-01T00:25:00Z'), 'UTC')).toBe(false);
  });
});
