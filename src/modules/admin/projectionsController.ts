// Admin: projection positions, lag and state; rebuild from position 0.
import { Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../../http/auth.js';
import type { ProjectionRunner } from '../../projections/projectionRunner.js';
import { PROJECTIONS } from '../../projections/projectionRunner.js';

@ApiTags('admin')
@AdminOnly()
@Controller('v1/admin/projections')
export class ProjectionsController {
  constructor(@Inject(PROJECTIONS) private readonly projections: ProjectionRunner) {}

  @Get()
  @ApiOperation({ summary: "Each projection's position, lag behind the head of the log, and state" })
  async list() {
    return { projections: await this.projections.statuses() };
  }

  @Get(':name')
  @ApiOperation({ summary: 'One projection' })
  async get(@Param('name') name: string) {
    return this.projections.status(name);
  }

  @Post(':name/rebuild')
  @HttpCode(202)
  @ApiOperation({ summary: 'Empty the projection and replay it from position 0; answers at once, poll the status for progress' })
  async rebuild(@Param('name') name: string) {
    return this.projections.rebuild(name);
  }
}
