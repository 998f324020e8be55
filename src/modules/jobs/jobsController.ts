// HTTP for scheduled jobs: create, import jobs.json, list, read, patch (pause/resume/reschedule), remove, fire a slot, report a run.
import { Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';
import { jobStreamName } from '../../events/job/jobEvents.js';
import { requestTenant, TakesCallbackToken } from '../../http/auth.js';
import { ReadsProjections } from '../../http/readYourWrites.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { changeJob } from './commands/changeJob.js';
import { FireJobCommand } from './commands/fireJob.js';
import { ImportJobsCommand, ScheduleJobCommand } from './commands/scheduleJob.js';
import { updateJobCommand } from './commands/updateJobCommand.js';
import { type ExistingJob, existingJob, jobDecider, jobNotFound } from './domain/jobDecider.js';
import { validJobId } from './jobId.js';
import { createJobRequestSchema, fireRequestSchema, listJobsQuerySchema, patchJobRequestSchema, runReportRequestSchema } from './jobRequests.js';
import { definitionsFromJobsJson, jobsJsonSchema } from './jobsJsonImport.js';
import { recentFiresView, toJobView } from './jobView.js';
import { decodeJobsCursor, encodeJobsCursor, listJobs } from './queries/jobsQueries.js';
import { SchedulerCallbackGuard } from './scheduler/schedulerCallbackGuard.js';
import { jobTimer, SchedulerRegistrations } from './scheduler/schedulerRegistrations.js';

const FIRE_ID = /^[A-Za-z0-9_.-]{1,64}$/;

function validFireId(fireId: string): string {
  if (!FIRE_ID.test(fireId)) throw new ValidationError('a fire id is 1-64 of A-Z a-z 0-9 _ . -', { fireId }, 'INVALID_FIRE_ID');
  return fireId;
}

@ApiTags('jobs')
@Controller('v1/jobs')
export class JobsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    private readonly registrations: SchedulerRegistrations,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a job: a prompt or skill on a schedule (cron, every 30m, in 45m, ISO timestamp), delivered to a chat' })
  @DocumentedBody(createJobRequestSchema)
  async create(@ValidBody(createJobRequestSchema) body: z.infer<typeof createJobRequestSchema>, @Req() request: Request) {
    const result = await this.commands.execute(new ScheduleJobCommand(body, requestMetadata(request)));
    this.followTimer(result.state, request);
    return { ...toJobView(result.state), revision: result.revision, position: result.position };
  }

  @Post('import')
  @HttpCode(200)
  @ApiOperation({ summary: 'Import Hermes\' jobs.json ({"jobs": [...]}, snake_case); ids that exist already are left as they are' })
  @DocumentedBody(jobsJsonSchema)
  async import(@ValidBody(jobsJsonSchema) body: z.infer<typeof jobsJsonSchema>, @Req() request: Request) {
    const result = await this.commands.execute(new ImportJobsCommand(definitionsFromJobsJson(body), requestMetadata(request)));
    for (const state of result.created) this.followTimer(state, request);
    return { created: result.created.map(toJobView), existing: result.existing, position: result.position };
  }

  @Get()
  @ReadsProjections('jobs')
  @ApiOperation({ summary: 'Jobs by id, cursor-paginated; ?enabled=true|false filters' })
  @ApiQuery({ name: 'enabled', required: false })
  @ApiQuery({ name: 'limit', required: false })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiQuery({ name: 'minPosition', required: false, description: 'Wait (bounded) until the jobs read model has applied this position' })
  async list(@ValidQuery(listJobsQuerySchema) query: z.infer<typeof listJobsQuerySchema>, @Req() request: Request) {
    const page = await listJobs(this.readModels, {
      tenant: requestTenant(request),
      enabled: query.enabled,
      limit: query.limit,
      afterJobId: query.cursor === undefined ? undefined : decodeJobsCursor(query.cursor),
    });
    return { jobs: page.rows.map((row) => toJobView(row.state)), nextCursor: page.next === null ? null : encodeJobsCursor(page.next) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One job, folded from its stream, with its most recent fires' })
  async get(@Param('id') id: string, @Req() request: Request) {
    const { state, revision, position } = await this.commandContext.streams.load(jobStreamName(validJobId(id), requestTenant(request)), jobDecider);
    if (state.status === 'absent' || state.status === 'removed') throw jobNotFound(id);
    return { ...toJobView(state), recentFires: recentFiresView(state), revision, position };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Edit a job: enabled false/true pauses/resumes, schedule and/or timeZone reschedules, other fields replace' })
  @DocumentedBody(patchJobRequestSchema)
  async patch(@Param('id') id: string, @ValidBody(patchJobRequestSchema) body: z.infer<typeof patchJobRequestSchema>, @Req() request: Request) {
    const jobId = validJobId(id);
    const update = updateJobCommand(jobId, body, this.commandContext.clock.now());
    const result = await changeJob(this.commandContext, jobId, update, requestMetadata(request));
    this.followTimer(result.state, request);
    return { ...toJobView(result.state), changed: result.written, revision: result.revision, position: result.position };
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove a job: it never fires again; its history stays in the stream' })
  async remove(@Param('id') id: string, @Req() request: Request) {
    const result = await changeJob(this.commandContext, validJobId(id), { type: 'RemoveJob' }, requestMetadata(request));
    this.followTimer(result.state, request);
    return { id, removed: true, revision: result.revision, position: result.position };
  }

  @Post(':id/fire')
  @HttpCode(200)
  @TakesCallbackToken()
  @UseGuards(SchedulerCallbackGuard)
  @ApiOperation({
    summary:
      "An external scheduler fires one slot; exactly one fire per slot succeeds, every other gets 409 ALREADY_FIRED. With JOBS_CALLBACK_SECRET set it needs the scheduler's callback token (HS256 JWT: sub job id, slot) or an admin token",
  })
  @DocumentedBody(fireRequestSchema)
  async fire(@Param('id') id: string, @ValidBody(fireRequestSchema) body: z.infer<typeof fireRequestSchema>, @Req() request: Request) {
    const result = await this.commands.execute(new FireJobCommand(validJobId(id), { type: 'slot', slot: body.slot }, requestMetadata(request)));
    this.followTimer(existingJob(result.state, id), request);
    const fire = result.fires[0]!;
    return {
      jobId: fire.jobId,
      fireId: fire.fireId,
      slot: fire.slot,
      skippedSlots: fire.skippedSlots,
      nextRunAt: fire.nextRunAt,
      completed: fire.completed,
      task: fire.task,
      delivery: fire.delivery ?? null,
      position: result.position,
    };
  }

  @Post(':id/runs/:fireId')
  @HttpCode(200)
  @ApiOperation({ summary: "The gateway reports a fire's outcome (ok, error, skipped); repeating the same report changes nothing" })
  @DocumentedBody(runReportRequestSchema)
  async reportRun(
    @Param('id') id: string,
    @Param('fireId') fireId: string,
    @ValidBody(runReportRequestSchema) body: z.infer<typeof runReportRequestSchema>,
    @Req() request: Request,
  ) {
    // The fire id first: a request with both ids malformed answers INVALID_FIRE_ID.
    const report = { type: 'ReportRun' as const, fireId: validFireId(fireId), status: body.status, error: body.error };
    const result = await changeJob(this.commandContext, validJobId(id), report, requestMetadata(request));
    const fire = result.state.recentFires.find((candidate) => candidate.fireId === fireId)!;
    return { jobId: id, fire, changed: result.written, job: toJobView(result.state), revision: result.revision, position: result.position };
  }

  /** The external scheduler (if any) learns the job's next slot, or that it has none. */
  private followTimer(state: ExistingJob, request: Request): void {
    this.registrations.follow(jobTimer(state.jobId, requestTenant(request), state));
  }
}
