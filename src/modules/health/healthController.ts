// Liveness (/health) and readiness (/ready: stores reachable, projections running).
import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from '../../http/httpTypes.js';
import type { DataSource } from 'typeorm';
import type { EventStore } from '../../events/eventStore.js';
import type { ProjectionRunner } from '../../projections/projectionRunner.js';
import { Public } from '../../http/auth.js';
import { CONFIG } from '../../config/config.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import { LOG_HORIZON } from '../../events/postgres/logHorizon.js';
import { PROJECTIONS } from '../../projections/projectionRunner.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import type { LedgerConfig } from '../../config/config.js';
import { describeHorizonHolder, type LogHorizonProbe } from '../../events/postgres/logHorizon.js';
import { SchedulerRegistrations } from '../jobs/scheduler/schedulerRegistrations.js';

type Check = { ok: boolean; detail?: string };

async function check(work: () => Promise<unknown>): Promise<Check> {
  try {
    await work();
    return { ok: true };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

@ApiTags('health')
@Public()
@Controller()
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(LOG_HORIZON) private readonly logHorizon: LogHorizonProbe | null,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  @Get('health')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process is up and serving HTTP' })
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary:
      "Readiness: event store and read-model database reachable, projections running (503 not_ready); 200 degraded while a transaction elsewhere on the PostgreSQL server holds the event log's readers back, or while the built-in ticker stands in for a job scheduler that does not answer",
  })
  async ready(@Res({ passthrough: true }) response: Response) {
    const [eventStore, readModels, eventLogHorizon] = await Promise.all([
      check(() => this.eventStore.ping()),
      check(() => this.readModels.query('SELECT 1')),
      this.horizonCheck(),
    ]);
    const projections = this.projections.localStates();
    const projectionsOk = projections.every((projection) => projection.state !== 'failed' && projection.state !== 'stopped');
    const ready = eventStore.ok && readModels.ok && projectionsOk;
    // Degraded, not unready: the horizon is the database's, every instance sees the same one, writes still work,
    // and taking instances out of rotation would refuse those writes too without letting a single read through.
    const jobScheduler = this.jobSchedulerCheck();
    const degraded = (eventLogHorizon && !eventLogHorizon.ok) || (jobScheduler && !jobScheduler.ok);
    const status = !ready ? 'not_ready' : degraded ? 'degraded' : 'ready';
    response.status(ready ? 200 : 503);
    return {
      status,
      checks: {
        eventStore,
        readModels,
        projections: { ok: projectionsOk, states: projections },
        ...(eventLogHorizon ? { eventLogHorizon } : {}),
        ...(jobScheduler ? { jobScheduler } : {}),
      },
    };
  }

  /** Only with JOBS_SCHEDULER_URL: who owns the job timers. Degraded, not unready: the ticker fires every due job meanwhile. */
  private jobSchedulerCheck() {
    // Looked up rather than imported: the jobs module owns it, and health stays a leaf module.
    const status = this.moduleRef.get(SchedulerRegistrations, { strict: false }).status();
    if (status.owner === 'ticker') return undefined;
    return {
      ok: status.owner === 'scheduler',
      timers: status.owner,
      ...(status.owner === 'fallback'
        ? { detail: `the job scheduler does not answer (${status.lastError ?? 'no answer'}): the built-in ticker fires due jobs since ${status.fallbackSince}` }
        : {}),
      failuresInARow: status.failuresInARow,
      pending: status.pending,
    };
  }

  /** Only on PostgreSQL: a transaction open longer than EVENT_LOG_HORIZON_STALL_SECONDS in the log's database. */
  private async horizonCheck(): Promise<(Check & { holder?: { pid: number | null; database: string | null; heldSeconds: number } }) | undefined> {
    if (!this.logHorizon) return undefined;
    try {
      const { holder } = await this.logHorizon.read();
      if (!holder || holder.heldSeconds < this.config.logHorizonStallSeconds) return { ok: true };
      return {
        ok: false,
        detail: `${describeHorizonHolder(holder)}: reads that wait for new events stall until it ends (see docs/operations.md)`,
        holder: { ...holder, heldSeconds: Math.round(holder.heldSeconds) },
      };
    } catch (error) {
      return { ok: false, detail: `horizon not read: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}
