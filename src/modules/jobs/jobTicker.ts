// The built-in ticker: every JOB_TICK_INTERVAL_MS, fire the jobs whose next slot has come; the first tick is the catch-up on start.
import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../clock.js';
import type { LedgerConfig } from '../../config/config.js';
import type { EventStore } from '../../events/eventStore.js';
import { CLOCK } from '../../clock.js';
import { CONFIG } from '../../config/config.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import { LOGGER } from '../../logging/logger.js';
import { PROJECTIONS } from '../../projections/projectionRunner.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import type { Logger } from '../../logging/logger.js';
import type { ProjectionRunner } from '../../projections/projectionRunner.js';
import { FireJobCommand } from './commands/fireJob.js';
import { type DueJob, dueJobs } from './queries/jobsQueries.js';
import { jobTimer, SchedulerRegistrations } from './scheduler/schedulerRegistrations.js';
import { BackgroundLoop } from '../backgroundLoop.js';

/** Jobs looked at per tick; more wait for the next tick. */
const DUE_BATCH = 500;
/** Jobs fired at once within a tick. */
const FIRE_CONCURRENCY = 8;
/** How long the first tick waits for the jobs read model to catch up with the log. */
const STARTUP_READ_MODEL_WAIT_MS = 10_000;

export interface TickSummary {
  due: number;
  fired: number;
  skipped: number;
  failed: number;
}

/**
 * A slot fired later than this after its time counts as missed and follows JOB_CATCH_UP; one fired
 * within it is simply on time. Two tick intervals (at least a minute) absorb a slow or delayed tick.
 */
export function onTimeGraceMs(tickIntervalMs: number): number {
  return Math.max(60_000, 2 * tickIntervalMs);
}

@Injectable()
export class JobTicker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly instance = randomBytes(4).toString('hex');
  private readonly logger: Logger;
  /** Ticks of this instance run one after another; instances race only at the append, which settles it. */
  private readonly loop: BackgroundLoop;
  private startup?: Promise<void>;

  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly registrations: SchedulerRegistrations,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.logger = logger.child({ component: 'job-ticker' });
    this.loop = new BackgroundLoop({ intervalMs: config.jobs.tickIntervalMs, onError: (error) => this.logger.error({ err: error }, 'job tick failed') }, () =>
      this.tick(),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.jobs.tickIntervalMs === 0) return;
    // In the background, so a long catch-up does not hold up serving requests.
    this.startup = this.loop.start(() => this.catchUpOnStart());
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** Resolves when the start-up catch-up tick has finished (at once when the ticker is off). */
  async started(): Promise<void> {
    await this.startup;
  }

  /** Runs one tick now, after any tick in progress; tests call this instead of waiting for the interval. */
  tick(): Promise<TickSummary> {
    return this.loop.serially(() => this.runTick());
  }

  private async catchUpOnStart(): Promise<void> {
    try {
      // Due jobs come from the read model: let it reach the log's head first, so no missed slot is overlooked.
      const head = await this.store.lastCommittedPosition();
      const deadline = Date.now() + STARTUP_READ_MODEL_WAIT_MS;
      // In short waits, so that closing the app does not sit out the whole wait.
      while (!this.loop.stopped && Date.now() < deadline && !(await this.projections.waitForPosition(['jobs'], head, 200)));
      const summary = await this.tick();
      if (summary.due > 0) this.logger.info({ ...summary, catchUp: this.config.jobs.catchUp }, 'start-up catch-up tick done');
    } catch (error) {
      this.logger.error({ err: error }, 'start-up catch-up tick failed; the next tick retries');
    }
  }

  private async runTick(): Promise<TickSummary> {
    const summary: TickSummary = { due: 0, fired: 0, skipped: 0, failed: 0 };
    if (this.loop.stopped) return summary;
    // While it stands in for the scheduler, each tick also asks whether the scheduler answers again.
    await this.registrations.retryWhileFallback();
    const now = this.clock.now();
    const grace = onTimeGraceMs(this.config.jobs.tickIntervalMs);
    // While the scheduler owns the timers the ticker only fires what it left overdue (a registration it lost).
    const dueBy = this.registrations.timerOwner() === 'scheduler' ? new Date(now.getTime() - grace) : now;
    const due = await dueJobs(this.readModels, dueBy, DUE_BATCH);
    summary.due = due.length;
    const correlationId = `tick-${this.instance}-${now.getTime()}`;
    const fire = async ({ jobId, tenant }: DueJob) => {
      try {
        const result = await this.commands.execute(
          new FireJobCommand(
            jobId,
            { type: 'due', catchUp: this.config.jobs.catchUp, onTimeGraceMs: grace },
            { actor: 'ticker', correlationId, ...(tenant ? { tenant } : {}) },
          ),
        );
        summary.fired += result.fires.length;
        if (result.fires.length > 0 || result.skipped) this.registrations.follow(jobTimer(jobId, tenant, result.state));
        if (result.skipped) summary.skipped += result.skipped.count;
        for (const fired of result.fires)
          this.logger.info(
            { jobId, tenant, fireId: fired.fireId, slot: fired.slot, skippedSlots: fired.skippedSlots, nextRunAt: fired.nextRunAt },
            'job fired',
          );
      } catch (error) {
        summary.failed += 1;
        this.logger.error({ err: error, jobId, tenant }, 'could not fire a due job; the next tick retries');
      }
    };
    // Each job is its own stream: fires of different jobs do not contend, so a few run at once.
    const queue = [...due];
    const worker = async () => {
      for (let job = queue.shift(); job !== undefined && !this.loop.stopped; job = queue.shift()) await fire(job);
    };
    await Promise.all(Array.from({ length: Math.min(FIRE_CONCURRENCY, due.length) }, worker));
    return summary;
  }
}
