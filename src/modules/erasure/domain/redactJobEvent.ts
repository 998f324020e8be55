// What of a job's events an erasure keeps, for a job created from the erased conversation: schedule, fires and outcomes, without what it says or where it goes.
import type { JobEvent } from '../../../events/job/jobEvents.js';
import { erasedDeliveryTarget, erasedJobOrigin, erasedJobTask, erasedTextOrNull } from './erasedValues.js';
import { ERASED_TEXT } from './erasureContext.js';
import { optional } from './optionalField.js';
import { type Redactors, unchanged } from './redactors.js';

type JobChanges = Extract<JobEvent, { type: 'JobUpdated' }>['data']['changes'];

export const jobRedactors: Redactors<JobEvent> = {
  JobScheduled: (data, context) => ({
    jobId: data.jobId,
    task: erasedJobTask(data.task, context),
    schedule: data.schedule,
    timeZone: data.timeZone,
    repeatTimes: data.repeatTimes,
    nextRunAt: data.nextRunAt,
    at: data.at,
  }),
  JobUpdated: (data, context) => {
    const { changes } = data;
    const erased: JobChanges = {
      ...(changes.name === undefined ? {} : { name: ERASED_TEXT }),
      ...(changes.description === undefined ? {} : { description: erasedTextOrNull(changes.description) }),
      ...(changes.prompt === undefined ? {} : { prompt: erasedTextOrNull(changes.prompt) }),
      ...optional('skill', changes.skill),
      ...(changes.deliverTo === undefined ? {} : { deliverTo: changes.deliverTo === null ? null : erasedDeliveryTarget(changes.deliverTo) }),
      ...(changes.origin === undefined ? {} : { origin: changes.origin === null ? null : erasedJobOrigin(changes.origin, context) }),
      ...optional('model', changes.model),
      ...optional('repeatTimes', changes.repeatTimes),
    };
    return { changes: erased, at: data.at };
  },
  JobRescheduled: unchanged,
  JobPaused: unchanged,
  JobResumed: unchanged,
  JobRemoved: unchanged,
  JobFired: (data, context) => ({
    jobId: data.jobId,
    fireId: data.fireId,
    slot: data.slot,
    trigger: data.trigger,
    dueSince: data.dueSince,
    skippedSlots: data.skippedSlots,
    nextRunAt: data.nextRunAt,
    completed: data.completed,
    firedAt: data.firedAt,
    task: erasedJobTask(data.task, context),
  }),
  JobSlotsSkipped: unchanged,
  JobRunReported: (data) => ({
    jobId: data.jobId,
    fireId: data.fireId,
    slot: data.slot,
    status: data.status,
    error: erasedTextOrNull(data.error),
    at: data.at,
  }),
};
