// UpdateJob as PATCH /v1/jobs/{id} asks for it: the patch checked at once, its schedule parsed at each attempt in the job's time zone.
import type { Attempt } from '../../../events/attemptCommand.js';
import { jobNotFound, type JobState } from '../domain/jobDecider.js';
import type { UpdateJob } from '../domain/decide/updateJob.js';
import type { JobPatch } from '../jobRequests.js';
import { parseSchedule, requireReadableSchedule, validTimeZone } from '../schedule/parseSchedule.js';

export function updateJobCommand(jobId: string, patch: JobPatch, now: Date): (attempt: Attempt<JobState>) => UpdateJob {
  // Validation before state: a malformed patch of a removed job answers the validation error, not 404.
  if (patch.timeZone !== undefined) validTimeZone(patch.timeZone);
  if (patch.schedule !== undefined) requireReadableSchedule(patch.schedule, now);
  return ({ now, state }) => {
    if (state.status === 'absent' || state.status === 'removed') throw jobNotFound(jobId);
    const timeZone = patch.timeZone === undefined ? state.timeZone : validTimeZone(patch.timeZone);
    const reschedule =
      patch.schedule !== undefined || patch.timeZone !== undefined
        ? { schedule: patch.schedule === undefined ? state.schedule : parseSchedule(patch.schedule, new Date(now), timeZone), timeZone }
        : undefined;
    return {
      type: 'UpdateJob',
      changes: {
        name: patch.name,
        description: patch.description,
        prompt: patch.prompt,
        skill: patch.skill,
        deliverTo: patch.deliverTo,
        origin: patch.origin,
        model: patch.model,
        repeatTimes: patch.repeat?.times,
      },
      reschedule,
      enabled: patch.enabled,
      now,
    };
  };
}
