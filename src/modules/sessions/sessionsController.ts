// HTTP for one session: its summary, turns (and turns in flight), transcript (read, rewrite, rewind), destroy.
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { z } from 'zod';
import type { LedgerConfig } from '../../config/config.js';
import type { MessageInput } from '../../events/session/sessionEvents.js';
import { CONFIG } from '../../config/config.js';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { ClaimWithFirstAppend } from '../../idempotency/claimWithFirstAppend.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { DestroySessionCommand, type DestroySessionResult } from './commands/destroySession.js';
import { changeSession } from './commands/changeSession.js';
import { recordTurnCommand } from './commands/recordTurnCommand.js';
import { rewriteTranscriptCommand } from './commands/rewriteTranscriptCommand.js';
import { loadSession } from './sessionAccess.js';
import { destroyQuerySchema, rewindRequestSchema, rewriteRequestSchema, transcriptQuerySchema, turnRequestSchema, validSessionId } from './sessionRequests.js';
import { toArray } from './domain/chunkedList.js';
import { liveMessageCount, sessionSummary } from './sessionStateView.js';
import { rewoundTargetText } from './domain/sessionDecider.js';
import { requireMessageCountWithinLimit, requireMessageSizesWithinLimit } from './messageLimits.js';
import { requireTurnUsageWithinLimit } from './domain/usageLimits.js';
import { eventOfType } from '../../events/eventOfType.js';

@ApiTags('sessions')
@Controller('v1/sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  @Get(':id')
  @ApiOperation({ summary: 'A session: status, counters, turn count, parent, current slot (folded from its stream)' })
  async get(@Param('id') id: string, @Req() request: Request) {
    const { state, revision, position } = await loadSession(this.commandContext, id, request);
    return sessionSummary(state, revision, position);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Destroy a session (its events stay for audit); ?cascade=true destroys its subtree too, else children become orphans' })
  @ApiQuery({ name: 'cascade', required: false })
  async destroy(
    @Param('id') id: string,
    @ValidQuery(destroyQuerySchema) query: z.infer<typeof destroyQuerySchema>,
    @Req() request: Request,
  ): Promise<DestroySessionResult> {
    return this.commands.execute(new DestroySessionCommand(validSessionId(id), query.cascade, requestMetadata(request)));
  }

  @Post(':id/turns')
  @HttpCode(201)
  @ClaimWithFirstAppend()
  @ApiOperation({ summary: 'Record a turn (completing one in flight): messages and usage; a completed turn is also a checkpoint and clears the resume mark' })
  @DocumentedBody(turnRequestSchema)
  async recordTurn(@Param('id') id: string, @ValidBody(turnRequestSchema) body: z.infer<typeof turnRequestSchema>, @Req() request: Request) {
    requireMessageCountWithinLimit(body.messages.length, this.config.limits);
    requireMessageSizesWithinLimit(body.messages, this.config.limits);
    requireTurnUsageWithinLimit(body.usage, this.config.limits);
    const result = await changeSession(this.commands, id, recordTurnCommand(this.config, { ...body, messages: body.messages as MessageInput[] }), request);
    const recorded = eventOfType(result.decided, 'TurnRecorded')?.data;
    return {
      turnIndex: result.state.turnCount,
      revision: result.revision,
      position: result.position,
      counters: result.state.counters,
      checkpointId: recorded?.checkpointId ?? null,
    };
  }

  @Post(':id/turns/start')
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Mark a turn in flight (optional): answers its lease (a fencing token for POST /turns); rollback answers 409 TURN_IN_FLIGHT until the next POST /turns records it',
  })
  async startTurn(@Param('id') id: string, @Req() request: Request) {
    const result = await changeSession(this.commands, id, { type: 'StartTurn' }, request);
    return { turnIndex: result.state.turnInFlight!.turnIndex, lease: result.state.turnLease!, revision: result.revision, position: result.position };
  }

  @Get(':id/transcript')
  @ApiOperation({ summary: 'The transcript; ?includeDeleted=true shows soft-deleted messages flagged; ?slot= one context slot only' })
  @ApiQuery({ name: 'includeDeleted', required: false, description: 'true: soft-deleted messages too, flagged deleted (default false)' })
  @ApiQuery({ name: 'slot', required: false, description: "Only this context slot's messages" })
  async transcript(@Param('id') id: string, @ValidQuery(transcriptQuerySchema) query: z.infer<typeof transcriptQuerySchema>, @Req() request: Request) {
    const { state, revision, position } = await loadSession(this.commandContext, id, request);
    const all = toArray(state.transcript);
    const inSlot = query.slot === undefined ? all : all.filter((message) => message.slot === query.slot);
    const messages = query.includeDeleted ? inSlot : inSlot.filter((message) => !message.deleted).map(({ deleted: _deleted, ...message }) => message);
    return { sessionId: state.sessionId, messages, revision, position };
  }

  @Put(':id/transcript')
  @ApiOperation({ summary: "Rewrite the current slot's transcript (compression); the old messages stay in history as deleted" })
  @DocumentedBody(rewriteRequestSchema)
  async rewrite(@Param('id') id: string, @ValidBody(rewriteRequestSchema) body: z.infer<typeof rewriteRequestSchema>, @Req() request: Request) {
    requireMessageSizesWithinLimit(body.messages, this.config.limits);
    const result = await changeSession(this.commands, id, rewriteTranscriptCommand(this.config, body.messages as MessageInput[]), request);
    const rewritten = eventOfType(result.decided, 'TranscriptRewritten')?.data;
    return {
      messageCount: liveMessageCount(result.state),
      replacedCount: rewritten?.replacedCount ?? 0,
      revision: result.revision,
      position: result.position,
    };
  }

  @Post(':id/rewind')
  @HttpCode(200)
  @ApiOperation({ summary: 'Undo the last n user turns of the current slot by soft delete (/undo, /retry)' })
  @DocumentedBody(rewindRequestSchema)
  async rewind(@Param('id') id: string, @ValidBody(rewindRequestSchema) body: z.infer<typeof rewindRequestSchema>, @Req() request: Request) {
    const result = await changeSession(this.commands, id, { type: 'RewindTranscript', turns: body.turns }, request);
    const rewound = eventOfType(result.decided, 'TranscriptRewound')?.data;
    return {
      rewoundCount: rewound?.rewoundCount ?? 0,
      turnsUndone: rewound?.turnsUndone ?? 0,
      targetText: rewound ? rewoundTargetText(result.state, rewound.fromMessageIndex) : null,
      revision: result.revision,
      position: result.position,
    };
  }
}
