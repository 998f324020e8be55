// The jobs read model folds each job event onto its own row (evolveJobRow), not onto the job decider's state. Over
// random valid histories (random commands, each decided on the state so far), the row must show what the write side's
// fold shows: the listing's view, the columns the listing and the ticker filter on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/errors/ledgerError.js';
import type { JobEvent, JobTask } from '../../src/events/job/jobEvents.js';
import type { Schedule } from '../../src/events/job/jobSchedule.js';
import { decideJob, evolveJob, initialJobState, type JobCommand, type JobState } from '../../src/modules/jobs/domain/jobDecider.js';
import { toJobView } from '../../src/modules/jobs/jobView.js';
import { evolveJobRow, type JobRecord } from '../../src/projections/jobs/evolveJobRow.js';
import { jobEventTypes } from '../../src/projections/jobs/jobsProjection.js';

const START = Date.parse('2026-01-05T08:00:00.000Z');

const task = (name: string, prompt: string | null): JobTask => ({
  name,
  description: null,
  prompt,
  skill: prompt === null ? 'server-health-checker' : null,
  deliverTo: null,
  origin: null,
  model: null,
});

/** The row the write side's state stands for; null where it keeps no job. */
function recordOf(state: JobState): JobRecord | null {
  if (state.status === 'absent') return null;
  const { recentFires: _fires, ...details } = state;
  return {
    jobId: state.jobId,
    status: state.status,
    enabled: state.status === 'scheduled',
    nextRunAt: state.nextRunAt === null ? null : new Date(state.nextRunAt),
    name: state.task.name,
    createdAt: new Date(state.createdAt),
    updatedAt: new Date(state.updatedAt),
    state: details,
  };
}

/** A command's choices, drawn before the history is known; `commandFor` makes them a command on the state so far. */
const step = fc.record({
  kind: fc.constantFrom('schedule', 'update', 'remove', 'tick', 'fire', 'report', 'report'),
  minutes: fc.integer({ min: 0, max: 90 }),
  schedule: fc.constantFrom<Schedule[]>(
    { kind: 'cron', expression: '*/10 * * * *' },
    { kind: 'interval', everyMs: 25 * 60_000, anchor: new Date(START).toISOString() },
    { kind: 'once', at: new Date(START + 45 * 60_000).toISOString() },
  ),
  repeatTimes: fc.constantFrom(null, 1, 2, 5),
  enabled: fc.option(fc.boolean(), { nil: undefined }),
  name: fc.constantFrom('health-check', 'digest'),
  prompt: fc.constantFrom(null, 'summarise'),
  reschedule: fc.boolean(),
  catchUp: fc.constantFrom('once', 'all', 'none') as fc.Arbitrary<'once' | 'all' | 'none'>,
  pick: fc.nat(),
  slot: fc.constantFrom('next', 'earlier', 'none'),
  status: fc.constantFrom('ok', 'error', 'skipped') as fc.Arbitrary<'ok' | 'error' | 'skipped'>,
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function commandFor(choice: Step, state: JobState, now: string): JobCommand {
  switch (choice.kind) {
    case 'schedule':
      return {
        type: 'ScheduleJob',
        jobId: 'j1',
        task: task(choice.name, choice.prompt),
        schedule: choice.schedule,
        timeZone: 'UTC',
        repeatTimes: choice.repeatTimes,
        enabled: choice.enabled ?? true,
        now,
      };
    case 'update':
      return {
        type: 'UpdateJob',
        changes: { name: choice.name, prompt: choice.prompt, repeatTimes: choice.repeatTimes },
        ...(choice.reschedule ? { reschedule: { schedule: choice.schedule, timeZone: 'Europe/Berlin' } } : {}),
        ...(choice.enabled === undefined ? {} : { enabled: choice.enabled }),
        now,
      };
    case 'remove':
      return { type: 'RemoveJob', now };
    case 'tick':
      return { type: 'FireDueSlots', now, catchUp: choice.catchUp, onTimeGraceMs: 60_000 };
    case 'fire': {
      const earlier = state.lastSlot ?? now;
      return { type: 'FireSlot', slot: choice.slot === 'none' ? null : choice.slot === 'earlier' ? earlier : state.nextRunAt, now };
    }
    case 'report': {
      const fires = state.recentFires;
      const fireId = fires.length === 0 ? 'fire_none' : fires[choice.pick % fires.length]!.fireId;
      return { type: 'ReportRun', fireId, status: choice.status, error: choice.status === 'error' ? 'it broke' : null, now };
    }
    default:
      throw new Error(`no such step ${choice.kind}`);
  }
}

describe('job row fold', () => {
  it('folding each event onto the row gives the row, and the listing, the write side would give', () => {
    let compared = 0;
    const folded = new Set<string>();
    fc.assert(
      // Half the histories begin scheduled, as a job's stream does; in the others both folds keep nothing until it is.
      fc.property(fc.boolean(), fc.array(step, { minLength: 1, maxLength: 40 }), (scheduledFirst, steps) => {
        const choices = scheduledFirst ? [{ ...steps[0]!, kind: 'schedule' as const }, ...steps] : steps;
        let written = initialJobState();
        let record: JobRecord | null = null;
        let clock = START;
        for (const choice of choices) {
          clock += choice.minutes * 60_000;
          let events: JobEvent[];
          try {
            events = decideJob(commandFor(choice, written, new Date(clock).toISOString()), written);
          } catch (refusal) {
            if (!(refusal instanceof LedgerError)) throw refusal;
            continue; // a refused command writes nothing
          }
          for (const event of events) {
            folded.add(event.type);
            written = evolveJob(written, event);
            record = evolveJobRow(record, event);
            expect(record).toEqual(recordOf(written));
            if (record !== null && written.status !== 'absent') {
              expect(toJobView(record.state)).toStrictEqual(toJobView(written));
              compared++;
            }
          }
        }
      }),
      { numRuns: 500 },
    );
    // The histories reach far enough to mean something: every event type, many rows.
    expect([...folded].sort()).toEqual(Object.keys(jobEventTypes).sort());
    expect(compared).toBeGreaterThan(1000);
  });
});
