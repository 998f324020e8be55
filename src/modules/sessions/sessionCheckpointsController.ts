// HTTP for checkpoints: take one, list them (newest first, on or off the current timeline), roll back to one.
import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { z } from 'zod';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { CommandContext } from '../commandContext.js';
import { lastItem } from './domain/chunkedList.js';
import { changeSession } from './commands/changeSession.js';
import { rollBackCommand } from './commands/rollBackCommand.js';
import { loadSession } from './sessionAccess.js';
import { checkpointRequestSchema, checkpointsQuerySchema, rollbackRequestSchema } from './sessionRequests.js';
import { listCheckpoints } from './domain/sessionState.js';
import { eventOfType } from '../../events/eventOfType.js';

@ApiTags('checkpoints')
@Controller('v1/sessions/:id')
export class SessionCheckpointsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
  ) {}

  @Post('checkpoints')
  @HttpCode(201)
  @ApiOperation({ summary: "Take a checkpoint: a name for the session's current event position" })
  @DocumentedBody(checkpointRequestSchema)
  async create(@Param('id') id: string, @ValidBody(checkpointRequestSchema) body: z.infer<typeof checkpointRequestSchema>, @Req() request: Request) {
    const result = await changeSession(this.commands, id, { type: 'CreateCheckpoint', label: body.label }, request);
    const checkpoint = lastItem(result.state.checkpoints)!;
    return {
      checkpointId: checkpoint.checkpointId,
      label: checkpoint.label,
      revision: checkpoint.revision,
      turnIndex: checkpoint.turnIndex,
      position: result.position,
    };
  }

  @Get('checkpoints')
  @ApiOperation({ summary: 'Checkpoints newest first (automatic ones too), each marked onCurrentTimeline; none once destroyed' })
  @ApiQuery({ name: 'limit', required: false })
  @ApiQuery({ name: 'before', required: false, description: "Older than this revision: the previous page's nextBefore" })
  async list(@Param('id') id: string, @ValidQuery(checkpointsQuerySchema) query: z.infer<typeof checkpointsQuerySchema>, @Req() request: Request) {
    const { state, revision, position } = await loadSession(this.commandContext, id, request);
    const listed =
      state.status === 'destroyed' ? [] : listCheckpoints(state).filter((checkpoint) => query.before === undefined || checkpoint.revision < query.before);
    const page = listed.slice(0, query.limit);
    return { sessionId: state.sessionId, checkpoints: page, nextBefore: listed.length > query.limit ? page.at(-1)!.revision : null, revision, position };
  }

  @Post('rollback')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Roll back (or forward) to a checkpoint: appends RolledBack; the state then equals the checkpoint’s. 409 TURN_IN_FLIGHT while a turn runs',
  })
  @DocumentedBody(rollbackRequestSchema)
  async rollback(@Param('id') id: string, @ValidBody(rollbackRequestSchema) body: z.infer<typeof rollbackRequestSchema>, @Req() request: Request) {
    const result = await changeSession(this.commands, id, rollBackCommand(this.commandContext.streams, body.checkpointId), request);
    const rolledBack = eventOfType(result.decided, 'RolledBack')!.data;
    return {
      checkpointId: body.checkpointId,
      targetRevision: rolledBack.targetRevision,
      fromRevision: rolledBack.fromRevision,
      turnIndex: result.state.turnCount,
      revision: result.revision,
      position: result.position,
    };
  }
}
