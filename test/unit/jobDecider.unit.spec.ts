// The job decider as a specification: define, edit, pause/resume, remove, fire each slot at most once, catch-up, run reports.
import { describe, expect, it } from 'vitest';
import type { JobEvent, JobTask } from '../../src/events/job/jobEvents.js';
import { fireIdFor, type JobCommand, jobDecider } from '../../src/modules/jobs/domain/jobDecider.js';
import type { Schedule } from '../../src/events/job/jobSchedule.js';
import { specification } from '../support/deciderSpecification.js';

const job = specification(jobDecider);

/** Minutes after a fixed start (a Monday, 08:00 UTC), as the ISO timestamps commands and events carry. */
const at = (minutes: number) => new Date(Date.parse('2026-01-05T08:00:00.000Z') + minutes * 60_000).toISOString();

const task: JobTask = {
  name: 'health-check',
  description: 'check the servers',
  prompt: null,
  skill: 'server-health-checker',
  deliverTo: { platform: 'telegram', chatId: '123456789', threadId: null },
  origin: null,
  model: null,
};
const every10m: Schedule = { kind: 'cron', expression: '*/10 * * * *' };
const once: Schedule = { kind: 'once', at: at(30) };
const GRACE = 60_000;

const scheduled = (schedule: Schedule = every10m, nextRunAt = at(10), repeatTimes: number | null = null): JobEvent => ({
  type: 'JobScheduled',
  data: { jobId: 'j1', task, schedule, timeZone: 'UTC', repeatTimes, nextRunAt, at: at(0) },
});
const fired = (slot: number, nextRunAt: number | null, extra: Partial<Extract<JobEvent, { type: 'JobFired' }>['data']> = {}): JobEvent => ({
  type: 'JobFired',
  data: {
    jobId: 'j1',
    fireId: fireIdFor(at(slot)),
    slot: at(slot),
    trigger: 'ticker',
    dueSince: at(slot),
    skippedSlots: 0,
    nextRunAt: nextRunAt === null ? null : at(nextRunAt),
    completed: nextRunAt === null,
    firedAt: at(slot),
    task,
    delivery: { ...task.deliverTo!, from: 'deliverTo' },
    ...extra,
  },
});
const paused = (minute: number): JobEvent => ({ type: 'JobPaused', data: { at: at(minute) } });

const schedule = (overrides: Partial<Extract<JobCommand, { type: 'ScheduleJob' }>> = {}): JobCommand => ({
  type: 'ScheduleJob',
  jobId: 'j1',
  task,
  schedule: every10m,
  timeZone: 'UTC',
  repeatTimes: null,
  enabled: true,
  now: at(0),
  ...overrides,
});
const tick = (minute: number, catchUp: 'once' | 'all' | 'none' = 'once'): JobCommand => ({
  type: 'FireDueSlots',
  now: at(minute),
  catchUp,
  onTimeGraceMs: GRACE,
});
const fireSlot = (slot: number | null, minute: number): JobCommand => ({ type: 'FireSlot', slot: slot === null ? null : at(slot), now: at(minute) });

describe('job decider', () => {
  describe('ScheduleJob', () => {
    it('schedules a new job with its first slot after now', () => job.given([]).when(schedule()).then([scheduled()]));

    it('starts a one-shot at its instant', () =>
      job
        .given([])
        .when(schedule({ schedule: once }))
        .then([scheduled(once, at(30))]));

    it('schedules a disabled job paused', () =>
      job
        .given([])
        .when(schedule({ enabled: false }))
        .then([scheduled(), paused(0)]));

    it('refuses an id already taken with 409 JOB_EXISTS', () => job.given([scheduled()]).when(schedule()).thenThrows({ code: 'JOB_EXISTS', status: 409 }));

    it('refuses a job with neither prompt nor skill', () =>
      job
        .given([])
        .when(schedule({ task: { ...task, skill: null } }))
        .thenThrows({ code: 'JOB_NEEDS_PROMPT_OR_SKILL', status: 400 }));

    it('re-creates a removed job, keeping the slots it fired', () =>
      job
        .given([scheduled(), fired(10, 20), { type: 'JobRemoved', data: { at: at(11) } }])
        .when(schedule({ now: at(12) }))
        .thenState({ status: 'scheduled', nextRunAt: at(20), lastSlot: at(10), repeat: { completed: 0 } }));
  });

  describe('FireDueSlots (the ticker)', () => {
    it('fires nothing before the slot is due', () => job.given([scheduled()]).when(tick(9)).then([]));

    it('fires the due slot and advances nextRunAt in the same decision', () =>
      job
        .given([scheduled()])
        .when(tick(10))
        .then([fired(10, 20, { firedAt: at(10) })]));

    it('fires nothing more for a slot once fired: the loser of a race re-decides into nothing', () =>
      job
        .given([scheduled(), fired(10, 20)])
        .when(tick(10))
        .then([]));

    it('does not fire a paused, removed or completed job', () => {
      job
        .given([scheduled(), paused(1)])
        .when(tick(15))
        .then([]);
      job
        .given([scheduled(), { type: 'JobRemoved', data: { at: at(1) } }])
        .when(tick(15))
        .then([]);
      job
        .given([scheduled(once, at(30)), fired(30, null)])
        .when(tick(45))
        .then([]);
    });

    it('completes a one-shot when it fires', () =>
      job
        .given([scheduled(once, at(30))])
        .when(tick(30))
        .thenState({ status: 'completed', nextRunAt: null, lastSlot: at(30), repeat: { completed: 1 } }));

    it('stops after repeat.times fires', () => {
      job
        .given([scheduled(every10m, at(10), 2), fired(10, 20)])
        .when(tick(20))
        .then([fired(20, null, { completed: true })]);
      job
        .given([scheduled(every10m, at(10), 2), fired(10, 20)])
        .when(tick(20))
        .thenState({ status: 'completed', repeat: { times: 2, completed: 2 } });
    });

    describe('catch-up of missed slots (10, 20, 30, 40, 50 missed; now 55)', () => {
      it('once: fires the latest missed slot only, then the next future slot', () =>
        job
          .given([scheduled()])
          .when(tick(55, 'once'))
          .then([fired(50, 60, { dueSince: at(10), skippedSlots: 4, firedAt: at(55) })]));

      it('all: fires every missed slot in order, in one append', () =>
        job
          .given([scheduled()])
          .when(tick(55, 'all'))
          .then([
            fired(10, 20, { dueSince: at(10), firedAt: at(55) }),
            fired(20, 30, { dueSince: at(10), firedAt: at(55) }),
            fired(30, 40, { dueSince: at(10), firedAt: at(55) }),
            fired(40, 50, { dueSince: at(10), firedAt: at(55) }),
            fired(50, 60, { dueSince: at(10), firedAt: at(55) }),
          ]));

      it('all: fires at most 100 missed slots, the latest ones', () =>
        job
          .given([scheduled()])
          .when(tick(60 * 24, 'all'))
          .thenState((state) => {
            expect(state.repeat.completed).toBe(100);
            expect(state.recentFires.at(-1)!.slot).toBe(at(60 * 24));
            expect(state.nextRunAt).toBe(at(60 * 24 + 10));
          }));

      it('none: fires nothing and moves to the next future slot', () =>
        job
          .given([scheduled()])
          .when(tick(55, 'none'))
          .then([{ type: 'JobSlotsSkipped', data: { firstSlot: at(10), lastSlot: at(50), count: 5, nextRunAt: at(60), completed: false, at: at(55) } }]));

      it('none: still fires a slot that is due within the grace (it was not missed)', () =>
        job
          .given([scheduled()])
          .when(tick(10.5, 'none'))
          .then([fired(10, 20, { firedAt: at(10.5) })]));

      it('none: completes a one-shot that was missed', () =>
        job
          .given([scheduled(once, at(30))])
          .when(tick(45, 'none'))
          .thenState({ status: 'completed', nextRunAt: null, lastSlot: null }));
    });
  });

  describe('FireSlot (an external scheduler)', () => {
    it('fires the named slot', () =>
      job
        .given([scheduled()])
        .when(fireSlot(10, 10))
        .then([fired(10, 20, { trigger: 'external' })]));

    it('answers 409 ALREADY_FIRED for a slot fired before, by anyone', () => {
      job
        .given([scheduled(), fired(10, 20)])
        .when(fireSlot(10, 10))
        .thenThrows({ code: 'ALREADY_FIRED', status: 409 });
      job
        .given([scheduled(), fired(10, 20, { trigger: 'external' })])
        .when(fireSlot(10, 11))
        .thenThrows({ code: 'ALREADY_FIRED' });
      job
        .given([scheduled(), fired(10, 20), fired(20, 30)])
        .when(fireSlot(10, 21))
        .thenThrows({ code: 'ALREADY_FIRED' });
      // A fired one-shot is complete, but the slot's answer stays ALREADY_FIRED.
      job
        .given([scheduled(once, at(30)), fired(30, null)])
        .when(fireSlot(30, 31))
        .thenThrows({ code: 'ALREADY_FIRED' });
    });

    it('refuses instants that are not slots of the schedule', () =>
      job.given([scheduled()]).when(fireSlot(15, 15)).thenThrows({ code: 'SLOT_NOT_SCHEDULED', status: 400 }));

    it('refuses a slot the job moved past without firing, and one far from due', () => {
      const skipped: JobEvent = {
        type: 'JobSlotsSkipped',
        data: { firstSlot: at(10), lastSlot: at(50), count: 5, nextRunAt: at(60), completed: false, at: at(55) },
      };
      job.given([scheduled(), skipped]).when(fireSlot(30, 56)).thenThrows({ code: 'SLOT_PASSED', status: 409 });
      job.given([scheduled()]).when(fireSlot(20, 10)).thenThrows({ code: 'SLOT_NOT_DUE', status: 409 });
    });

    it('takes a slot a little early (clock skew) and a late one, skipping what lies between without a burst', () => {
      job
        .given([scheduled()])
        .when(fireSlot(10, 9))
        .then([fired(10, 20, { trigger: 'external', firedAt: at(9) })]);
      job
        .given([scheduled()])
        .when(fireSlot(30, 45))
        .then([fired(30, 50, { trigger: 'external', dueSince: at(10), skippedSlots: 2, firedAt: at(45) })]);
    });

    it('refuses paused and completed jobs, and absent ones with 404', () => {
      job
        .given([scheduled(), paused(1)])
        .when(fireSlot(10, 10))
        .thenThrows({ code: 'JOB_PAUSED', status: 409 });
      job
        .given([scheduled(once, at(30)), fired(30, null)])
        .when(fireSlot(40, 40))
        .thenThrows({ code: 'JOB_COMPLETED', status: 409 });
      job.given([]).when(fireSlot(10, 10)).thenThrows({ code: 'JOB_NOT_FOUND', status: 404 });
    });
  });

  describe('UpdateJob', () => {
    it('records only the fields that change', () =>
      job
        .given([scheduled()])
        .when({ type: 'UpdateJob', changes: { name: 'health-check', prompt: 'and report', model: undefined }, now: at(1) })
        .then([{ type: 'JobUpdated', data: { changes: { prompt: 'and report' }, at: at(1) } }]));

    it('changes nothing when nothing changes, whatever the key order of objects', () =>
      job
        .given([scheduled()])
        .when({ type: 'UpdateJob', changes: { deliverTo: { threadId: null, chatId: '123456789', platform: 'telegram' } }, now: at(1) })
        .then([]));

    it('refuses an edit that leaves neither prompt nor skill', () =>
      job
        .given([scheduled()])
        .when({ type: 'UpdateJob', changes: { skill: null }, now: at(1) })
        .thenThrows({ code: 'JOB_NEEDS_PROMPT_OR_SKILL' }));

    it('pauses (no next run) and resumes from now, leaving the paused-over slots unfired', () => {
      job
        .given([scheduled()])
        .when({ type: 'UpdateJob', changes: {}, enabled: false, now: at(5) })
        .then([paused(5)]);
      job
        .given([scheduled(), paused(5)])
        .when({ type: 'UpdateJob', changes: {}, enabled: true, now: at(35) })
        .then([{ type: 'JobResumed', data: { nextRunAt: at(40), at: at(35) } }]);
    });

    it('reschedules with a new next run, and keeps a paused job paused', () => {
      const hourly: Schedule = { kind: 'cron', expression: '0 * * * *' };
      job
        .given([scheduled()])
        .when({ type: 'UpdateJob', changes: {}, reschedule: { schedule: hourly, timeZone: 'UTC' }, now: at(5) })
        .then([{ type: 'JobRescheduled', data: { schedule: hourly, timeZone: 'UTC', nextRunAt: at(60), at: at(5) } }]);
      job
        .given([scheduled(), paused(1)])
        .when({ type: 'UpdateJob', changes: {}, reschedule: { schedule: hourly, timeZone: 'UTC' }, now: at(5) })
        .thenState({ status: 'paused', nextRunAt: null, schedule: hourly });
      job
        .given([scheduled()])
        .when({ type: 'UpdateJob', changes: {}, reschedule: { schedule: every10m, timeZone: 'UTC' }, now: at(5) })
        .then([]);
    });

    it('revives a completed one-shot given a new instant, and refuses to resume it without one', () => {
      const later: Schedule = { kind: 'once', at: at(90) };
      job
        .given([scheduled(once, at(30)), fired(30, null)])
        .when({ type: 'UpdateJob', changes: {}, reschedule: { schedule: later, timeZone: 'UTC' }, now: at(40) })
        .thenState({ status: 'scheduled', nextRunAt: at(90) });
      job
        .given([scheduled(once, at(30)), fired(30, null)])
        .when({ type: 'UpdateJob', changes: {}, enabled: true, now: at(40) })
        .thenThrows({ code: 'JOB_COMPLETED' });
    });

    it('answers 404 for a removed job', () =>
      job
        .given([scheduled(), { type: 'JobRemoved', data: { at: at(1) } }])
        .when({ type: 'UpdateJob', changes: { name: 'x' }, now: at(2) })
        .thenThrows({ code: 'JOB_NOT_FOUND', status: 404 }));
  });

  describe('RemoveJob', () => {
    it('removes a job once', () => {
      job
        .given([scheduled()])
        .when({ type: 'RemoveJob', now: at(1) })
        .then([{ type: 'JobRemoved', data: { at: at(1) } }]);
      job
        .given([scheduled(), { type: 'JobRemoved', data: { at: at(1) } }])
        .when({ type: 'RemoveJob', now: at(2) })
        .thenThrows({ code: 'JOB_NOT_FOUND' });
    });
  });

  describe('ReportRun', () => {
    const fireId = fireIdFor(at(10));
    const report = (status: 'ok' | 'error' | 'skipped', error: string | null = null, minute = 11): JobCommand => ({
      type: 'ReportRun',
      fireId,
      status,
      error,
      now: at(minute),
    });

    it('names fires by their slot', () => expect(fireId).toBe('fire_20260105T081000Z'));

    it('records the outcome of a recent fire as the last status', () => {
      job
        .given([scheduled(), fired(10, 20)])
        .when(report('error', 'timeout'))
        .then([{ type: 'JobRunReported', data: { jobId: 'j1', fireId, slot: at(10), status: 'error', error: 'timeout', at: at(11) } }]);
      job
        .given([scheduled(), fired(10, 20)])
        .when(report('error', 'timeout'))
        .thenState({ lastStatus: 'error', lastError: 'timeout' });
    });

    it('takes a repeated report as done, and refuses a contradicting one', () => {
      const reported: JobEvent = { type: 'JobRunReported', data: { jobId: 'j1', fireId, slot: at(10), status: 'ok', error: null, at: at(11) } };
      job
        .given([scheduled(), fired(10, 20), reported])
        .when(report('ok'))
        .then([]);
      job
        .given([scheduled(), fired(10, 20), reported])
        .when(report('error', 'late'))
        .thenThrows({ code: 'RUN_ALREADY_REPORTED', status: 409 });
    });

    it('does not let an older fire report overwrite a newer one', () => {
      const newer: JobEvent = { type: 'JobRunReported', data: { jobId: 'j1', fireId: fireIdFor(at(20)), slot: at(20), status: 'ok', error: null, at: at(21) } };
      job
        .given([scheduled(), fired(10, 20), fired(20, 30), newer])
        .when(report('error', 'old', 22))
        .thenState({ lastStatus: 'ok', lastError: null });
    });

    it('answers 404 FIRE_NOT_FOUND for a fire the job never had', () =>
      job.given([scheduled()]).when(report('ok')).thenThrows({ code: 'FIRE_NOT_FOUND', status: 404 }));
  });
});

describe('an event type from a newer version of the service (a rolling upgrade)', () => {
  it('leaves the folded state as it is', () => {
    const folded = [scheduled()].reduce(jobDecider.evolve, jobDecider.initialState());
    expect(jobDecider.evolve(folded, { type: 'FromANewerVersion', data: { at: '2026-07-01T00:00:00.000Z' } } as never)).toEqual(folded);
  });
});

describe("a fire's delivery, resolved as Hermes' cron resolves deliver=origin", () => {
  const fireWith = (changes: Partial<JobTask>, homeChannels: Array<{ platform: string; chatId: string }>) => {
    const [event] = jobDecider.decide(
      { type: 'FireSlot', slot: at(10), now: at(10), homeChannels },
      [scheduled(), { type: 'JobUpdated', data: { changes, at: at(1) } } as JobEvent].reduce(jobDecider.evolve, jobDecider.initialState()),
    );
    return event?.type === 'JobFired' ? event.data.delivery : undefined;
  };
  const origin = { platform: 'slack', chatId: 'C1', chatName: null, userId: null, threadId: '1.2', sessionKey: null };
  const homes = [
    { platform: 'discord', chatId: 'D-home' },
    { platform: 'slack', chatId: 'S-home' },
  ];

  it('goes where the job says', () => expect(fireWith({}, homes)).toEqual({ ...task.deliverTo, from: 'deliverTo' }));

  it('without deliverTo, back to the origin chat and thread', () =>
    expect(fireWith({ deliverTo: null, origin }, homes)).toEqual({ platform: 'slack', chatId: 'C1', threadId: '1.2', from: 'origin' }));

  it("without an origin chat, to the origin platform's home channel, else the first registered one", () => {
    expect(fireWith({ deliverTo: null, origin: { ...origin, chatId: null } }, homes)).toEqual({
      platform: 'slack',
      chatId: 'S-home',
      threadId: null,
      from: 'home_channel',
    });
    expect(fireWith({ deliverTo: null, origin: null }, homes)).toEqual({ platform: 'discord', chatId: 'D-home', threadId: null, from: 'home_channel' });
  });

  it('nowhere when nothing is known', () => expect(fireWith({ deliverTo: null, origin: null }, [])).toBeNull());
});
