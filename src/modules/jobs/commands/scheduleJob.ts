// Create a job, or import a jobs.json: parse each schedule at the edge of the decision, then one append per job stream.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '../../../errors/ledgerError.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { jobStreamName, type JobTask } from '../../../events/job/jobEvents.js';
import { CommandContext } from '../../commandContext.js';
import { type ExistingJob, existingJob, type JobCommand, jobDecider } from '../domain/jobDecider.js';
import { newJobId } from '../jobId.js';
import type { JobDefinition } from '../jobRequests.js';
import { parseSchedule } from '../schedule/parseSchedule.js';

export interface JobWriteResult {
  state: ExistingJob;
  revision: number;
  position: number;
  written: boolean;
}

export class ScheduleJobCommand extends Command<JobWriteResult> {
  constructor(
    readonly definition: JobDefinition,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export class ImportJobsCommand extends Command<ImportJobsResult> {
  constructor(
    readonly definitions: JobDefinition[],
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface ImportJobsResult {
  created: ExistingJob[];
  /** Ids already taken: left as they are, so importing the same file twice changes nothing. */
  existing: string[];
  position: number;
}

/** A name for jobs given none: the id chosen by hand, else the skill, else the prompt's first line. */
function defaultName(definition: JobDefinition): string {
  return definition.name ?? definition.id ?? definition.skill ?? (definition.prompt ?? '').split('\n')[0]!.slice(0, 80);
}

function toScheduleCommand(definition: JobDefinition, now: Date): Extract<JobCommand, { type: 'ScheduleJob' }> {
  const jobId = definition.id ?? newJobId();
  const task: JobTask = {
    name: defaultName(definition),
    description: definition.description,
    prompt: definition.prompt,
    skill: definition.skill,
    deliverTo: definition.deliverTo,
    origin: definition.origin,
    model: definition.model,
  };
  return {
    type: 'ScheduleJob',
    jobId,
    task,
    schedule: parseSchedule(definition.schedule, now, definition.timeZone),
    timeZone: definition.timeZone,
    repeatTimes: definition.repeat.times,
    enabled: definition.enabled,
    now: now.toISOString(),
  };
}

@CommandHandler(ScheduleJobCommand)
export class ScheduleJobHandler implements ICommandHandler<ScheduleJobCommand> {
  constructor(private readonly commandContext: CommandContext) {}

  async execute({ definition, metadata }: ScheduleJobCommand): Promise<JobWriteResult> {
    const command = toScheduleCommand(definition, this.commandContext.clock.now());
    const result = await this.commandContext.streams.handle(jobStreamName(command.jobId, metadata.tenant), jobDecider, command, metadata);
    return { ...result, state: existingJob(result.state, command.jobId) };
  }
}

@CommandHandler(ImportJobsCommand)
export class ImportJobsHandler implements ICommandHandler<ImportJobsCommand> {
  constructor(private readonly commandContext: CommandContext) {}

  async execute({ definitions, metadata }: ImportJobsCommand): Promise<ImportJobsResult> {
    const now = this.commandContext.clock.now();
    // Every schedule parses before the first write: a bad entry refuses the whole file.
    const commands = definitions.map((definition) => toScheduleCommand(definition, now));
    const result: ImportJobsResult = { created: [], existing: [], position: 0 };
    for (const command of commands) {
      try {
        const written = await this.commandContext.streams.handle(jobStreamName(command.jobId, metadata.tenant), jobDecider, command, metadata);
        result.created.push(existingJob(written.state, command.jobId));
        result.position = Math.max(result.position, written.position);
      } catch (error) {
        if (!(error instanceof ConflictError && error.code === 'JOB_EXISTS')) throw error;
        result.existing.push(command.jobId);
      }
    }
    return result;
  }

  /**
   * What execute would do, decided the same way (schedules parsed at the same clock, each job's decision made on its
   * stream as it stands) with nothing appended: a dry run refuses exactly what the run refuses.
   */
  async decideWithoutWriting({ definitions, metadata }: ImportJobsCommand): Promise<Pick<ImportJobsResult, 'existing'> & { created: string[] }> {
    const now = this.commandContext.clock.now();
    const commands = definitions.map((definition) => toScheduleCommand(definition, now));
    const result = { created: [] as string[], existing: [] as string[] };
    for (const command of commands) {
      const { state } = await this.commandContext.streams.load(jobStreamName(command.jobId, metadata.tenant), jobDecider);
      try {
        jobDecider.decide(command, state);
        result.created.push(command.jobId);
      } catch (error) {
        if (!(error instanceof ConflictError && error.code === 'JOB_EXISTS')) throw error;
        result.existing.push(command.jobId);
      }
    }
    return result;
  }
}
