// The job decider: define, edit, pause/resume, remove, fire a slot at most once, record the run's outcome. One file per
// command under decide/; this one dispatches.
import type { Decider } from '../../../events/decider.js';
import type { JobEvent } from '../../../events/job/jobEvents.js';
import { decideFireDueSlots, type FireDueSlots } from './decide/fireDueSlots.js';
import { decideFireSlot, type FireSlot } from './decide/fireSlot.js';
import { decideRemoveJob, type RemoveJob } from './decide/removeJob.js';
import { decideReportRun, type ReportRun } from './decide/reportRun.js';
import { decideScheduleJob, type ScheduleJob } from './decide/scheduleJob.js';
import { decideUpdateJob, type UpdateJob } from './decide/updateJob.js';
import { evolveJob } from './evolveJob.js';
import { initialJobState, type JobState } from './jobState.js';

export { evolveJob } from './evolveJob.js';
export * from './jobState.js';

export type JobCommand = ScheduleJob | UpdateJob | RemoveJob | FireDueSlots | FireSlot | ReportRun;

export function decideJob(command: JobCommand, state: JobState): JobEvent[] {
  switch (command.type) {
    case 'ScheduleJob':
      return decideScheduleJob(command, state);
    case 'UpdateJob':
      return decideUpdateJob(command, state);
    case 'RemoveJob':
      return decideRemoveJob(command, state);
    case 'FireDueSlots':
      return decideFireDueSlots(command, state);
    case 'FireSlot':
      return decideFireSlot(command, state);
    case 'ReportRun':
      return decideReportRun(command, state);
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const jobDecider: Decider<JobState, JobCommand, JobEvent> = {
  initialState: initialJobState,
  evolve: evolveJob,
  decide: decideJob,
};
