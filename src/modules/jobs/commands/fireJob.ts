// Fire a job's slot at most once: the append at the loaded revision is the compare-and-set, across every instance.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import { READ_MODELS } from '../../../projections/readModelDatabase.js';
import { livePlatformRegistry } from '../../gateways/queries/livePlatformRegistry.js';
import { type HomeChannel, needsHomeChannels } from '../delivery/fireDelivery.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { type CatchUpPolicy, type JobEvent, jobStreamName } from '../../../events/job/jobEvents.js';
import { CommandContext } from '../../commandContext.js';
import { jobDecider, type JobState } from '../domain/jobDecider.js';

export type FireRequest =
  /** The ticker: whatever is due now, missed slots per the catch-up policy. */
  | { type: 'due'; catchUp: CatchUpPolicy; onTimeGraceMs: number }
  /** An external scheduler: this slot, or the job's next one when it names none. */
  | { type: 'slot'; slot?: string };

export class FireJobCommand extends Command<FireJobResult> {
  constructor(
    readonly jobId: string,
    readonly request: FireRequest,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export type JobFiredData = Extract<JobEvent, { type: 'JobFired' }>['data'];

export interface FireJobResult {
  fires: JobFiredData[];
  /** Slots catch-up decided not to fire, if any. */
  skipped: Extract<JobEvent, { type: 'JobSlotsSkipped' }>['data'] | null;
  state: JobState;
  position: number;
}

/**
 * Why StreamStateStore.handle (which retries conflicts) is safe here: a retry is not blind, it
 * reloads the stream and decides again. A named slot is fixed before the first attempt (an omitted
 * slot is resolved to the nextRunAt loaded once, here), so the retry decides on the same slot, which
 * the decider now refuses with 409 ALREADY_FIRED; it can never slide to the job's next slot. The
 * ticker's decision "fire what is due" finds nothing due once the winner has advanced nextRunAt.
 */
@CommandHandler(FireJobCommand)
export class FireJobHandler implements ICommandHandler<FireJobCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
  ) {}

  async execute({ jobId, request, metadata }: FireJobCommand): Promise<FireJobResult> {
    const stream = jobStreamName(jobId, metadata.tenant);
    const { streams } = this.commandContext;
    let slot: string | null = null;
    const loaded = await streams.load(stream, jobDecider);
    if (request.type === 'slot') slot = request.slot ?? loaded.state.nextRunAt;
    // Read before the decision, outside the retried callback: the registry changes seldom, a fire is decided once.
    const homeChannels: HomeChannel[] =
      loaded.state.status !== 'absent' && needsHomeChannels(loaded.state.task)
        ? (await livePlatformRegistry(this.readModels, streams, metadata.tenant)).homeChannels.map(({ platform, chatId }) => ({ platform, chatId }))
        : [];
    const result = await streams.handle(
      stream,
      jobDecider,
      () => {
        const now = this.commandContext.now();
        return request.type === 'due'
          ? { type: 'FireDueSlots' as const, now, catchUp: request.catchUp, onTimeGraceMs: request.onTimeGraceMs, homeChannels }
          : { type: 'FireSlot' as const, slot, now, homeChannels };
      },
      metadata,
    );
    const fires: JobFiredData[] = [];
    let skipped: FireJobResult['skipped'] = null;
    for (const event of result.events) {
      if (event.type === 'JobFired') fires.push(event.data);
      else if (event.type === 'JobSlotsSkipped') skipped = event.data;
    }
    return { fires, skipped, state: result.state, position: result.position };
  }
}
