// Liveness (/health) and readiness (/ready: stores reachable, projections running).
import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { DataSource } from 'typeorm';
import type { EventStore } from '../../events/eventStore.js';
import type { ProjectionRunner } from '../../projections/projectionRunner.js';
import { Public } from '../../http/auth.js';
import { EVENT_STORE, PROJECTIONS, READ_MODELS } from '../../http/tokens.js';

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
  ) {}

  @Get('health')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process is up and serving HTTP' })
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: event store and read-model database reachable, projections running' })
  async ready(@Res({ passthrough: true }) response: Response) {
    const [eventStore, readModels] = await Promise.all([check(() => this.eventStore.ping()), check(() => this.readModels.query('SELECT 1'))]);
    const projections = this.projections.localStates();
    const projectionsOk = projections.every((projection) => projection.state !== 'failed' && projection.state !== 'stopped');
    const ready = eventStore.ok && readModels.ok && projectionsOk;
    response.status(ready ? 200 : 503);
    return { status: ready ? 'ready' : 'not_ready', checks: { eventStore, readModels, projections: { ok: projectionsOk, states: projections } } };
  }
}
