// Edit, pause/resume, reschedule or remove a job, and record a run's outcome: one decision on the job's stream each.
import { type AttemptCommand, commandOfAttempt } from '../../../events/attemptCommand.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { jobStreamName } from '../../../events/job/jobEvents.js';
import type { CommandContext } from '../../commandContext.js';
import { existingJob, type JobCommand, jobDecider, type JobState } from '../domain/jobDecider.js';
import type { JobWriteResult } from './scheduleJob.js';

/** Load → decide → append on `job-<id>`; the command is stamped with the time (or built, updateJobCommand) at each attempt. */
export async function changeJob(
  commandContext: CommandContext,
  jobId: string,
  command: AttemptCommand<JobState, JobCommand>,
  metadata: EventMetadata,
): Promise<JobWriteResult> {
  const streamName = jobStreamName(jobId, metadata.tenant);
  const result = await commandContext.streams.handle(
    streamName,
    jobDecider,
    (state, reads) => commandOfAttempt(command, { now: commandContext.now(), streamName, state, reads }),
    metadata,
  );
  return { ...result, state: existingJob(result.state, jobId) };
}
