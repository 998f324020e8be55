// RemoveJob: it never fires again; the slots it fired stay fired.
import type { JobEvent } from '../../../../events/job/jobEvents.js';
import { exists } from '../jobRules.js';
import { jobNotFound, type JobState } from '../jobState.js';

export interface RemoveJob {
  type: 'RemoveJob';
  now: string;
}

export function decideRemoveJob(command: RemoveJob, state: JobState): JobEvent[] {
  if (!exists(state)) throw jobNotFound(state.jobId);
  return [{ type: 'JobRemoved', data: { at: command.now } }];
}
