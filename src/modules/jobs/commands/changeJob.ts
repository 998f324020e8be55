// Edit, pause/resume, reschedule or remove a job, and record a run's outcome: one decision on the job's stream each.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { jobStreamName, type RunStatus } from '../../../events/job/jobEvents.js';
import { CommandContext } from '../../commandContext.js';
import { existingJob, type JobCommand, jobDecider, jobNotFound, type JobState } from '../domain/jobDecider.js';
import type { JobPatch } from '../jobRequests.js';
import { parseSchedule, requireReadableSchedule, validTimeZone } from '../schedule/parseSchedule.js';
import type { JobWriteResult } from './scheduleJob.js';

export type JobChange =
  { type: 'update'; patch: JobPatch } | { type: 'remove' } | { type: 'reportRun'; fireId: string; status: RunStatus; error: string | null };

export class ChangeJobCommand extends Command<JobWriteResult> {
  constructor(
    readonly jobId: string,
    readonly change: JobChange,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

@CommandHandler(ChangeJobCommand)
export class ChangeJobHandler implements ICommandHandler<ChangeJobCommand> {
  constructor(private readonly commandContext: CommandContext) {}

  async execute({ jobId, change, metadata }: ChangeJobCommand): Promise<JobWriteResult> {
    if (change.type === 'update') {
      // Validation before state: a malformed patch of a removed job answers the validation error, not 404.
      if (change.patch.timeZone !== undefined) validTimeZone(change.patch.timeZone);
      if (change.patch.schedule !== undefined) requireReadableSchedule(change.patch.schedule, this.commandContext.clock.now());
    }
    const result = await this.commandContext.streams.handle(
      jobStreamName(jobId, metadata.tenant),
      jobDecider,
      (state) => this.toCommand(jobId, change, state),
      metadata,
    );
    return { ...result, state: existingJob(result.state, jobId) };
  }

  private toCommand(jobId: string, change: JobChange, state: JobState): JobCommand {
    const now = this.commandContext.clock.now();
    switch (change.type) {
      case 'update': {
        if (state.status === 'absent' || state.status === 'removed') throw jobNotFound(jobId);
        const { patch } = change;
        const timeZone = patch.timeZone === undefined ? state.timeZone : validTimeZone(patch.timeZone);
        const reschedule =
          patch.schedule !== undefined || patch.timeZone !== undefined
            ? { schedule: patch.schedule === undefined ? state.schedule : parseSchedule(patch.schedule, now, timeZone), timeZone }
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
          now: now.toISOString(),
        };
      }
      case 'remove':
        return { type: 'RemoveJob', now: now.toISOString() };
      case 'reportRun':
        return { type: 'ReportRun', fireId: change.fireId, status: change.status, error: change.error, now: now.toISOString() };
      default: {
        const unknown: never = change;
        return unknown;
      }
    }
  }
}
