// HTTP for a conversation's runtime binding: turns (sticky, drift), /new, /detach, the binding and its pending waits.
import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { z } from 'zod';
import { runtimeBindingStreamName } from '../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../events/runtime/runtimeSessionEvents.js';
import { requestTenant } from '../../http/auth.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { validSessionKey } from '../conversations/conversationRequests.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { DetachRuntimeCommand } from './commands/detachRuntime.js';
import { requireConversation, StartRuntimeTurnCommand } from './commands/startRuntimeTurn.js';
import { runtimeBindingDecider } from './domain/runtimeBindingDecider.js';
import { newRuntimeRequestSchema, runtimeTurnRequestSchema } from './runtimeRequests.js';
import { runtimeSessionDecider } from './domain/runtimeSessionDecider.js';
import { runtimeBindingView } from './runtimeViews.js';

@ApiTags('runtime')
@Controller('v1/conversations/:key/runtime')
export class ConversationRuntimeController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
  ) {}

  @Post('turns')
  @ApiOperation({
    summary: 'Start a turn on the bound runtime session; a new one when unbound, newSession, or provider/model drift (409 RUNTIME_BUSY while one runs)',
  })
  @DocumentedBody(runtimeTurnRequestSchema)
  turn(@Param('key') key: string, @ValidBody(runtimeTurnRequestSchema) body: z.infer<typeof runtimeTurnRequestSchema>, @Req() request: Request) {
    const binding = { type: 'sticky' as const, provider: body.provider, model: body.model, newSession: body.newSession };
    return this.commands.execute(new StartRuntimeTurnCommand(validSessionKey(key), binding, body.input, requestMetadata(request)));
  }

  @Post('new')
  @HttpCode(200)
  @ApiOperation({ summary: '/new: unbind; /new <task>, /new codex <task>: bind a new runtime session and start the task on it' })
  @DocumentedBody(newRuntimeRequestSchema)
  newSession(@Param('key') key: string, @ValidBody(newRuntimeRequestSchema) body: z.infer<typeof newRuntimeRequestSchema>, @Req() request: Request) {
    const sessionKey = validSessionKey(key);
    if (body.task === undefined) return this.commands.execute(new DetachRuntimeCommand(sessionKey, 'new_command', requestMetadata(request)));
    const binding = { type: 'task' as const, provider: body.provider ?? null, model: body.model ?? null };
    return this.commands.execute(new StartRuntimeTurnCommand(sessionKey, binding, body.task, requestMetadata(request)));
  }

  @Post('detach')
  @HttpCode(200)
  @ApiOperation({ summary: '/detach: unbind the runtime session; the conversation and its history stay' })
  detach(@Param('key') key: string, @Req() request: Request) {
    return this.commands.execute(new DetachRuntimeCommand(validSessionKey(key), 'detach', requestMetadata(request)));
  }

  @Get()
  @ApiOperation({ summary: 'The binding: unbound, idle, running, waiting_user or waiting_approval; the bound runtime session; the last drift note' })
  async get(@Param('key') key: string, @Req() request: Request) {
    const { sessionKey, binding, runtime } = await this.load(key, request);
    return {
      ...runtimeBindingView(sessionKey, binding.state, runtime?.state ?? null),
      revision: binding.revision,
      position: Math.max(binding.position, runtime?.position ?? 0),
    };
  }

  @Get('pending')
  @ApiOperation({ summary: 'Approvals and questions the bound runtime session waits on' })
  async pending(@Param('key') key: string, @Req() request: Request) {
    const { sessionKey, binding, runtime } = await this.load(key, request);
    const runtimeSessionId = binding.state.runtimeSessionId;
    return {
      sessionKey,
      runtimeSessionId,
      runtimeState: runtime?.state.status ?? null,
      approvals: runtime?.state.pendingApprovals ?? [],
      questions: runtime?.state.pendingQuestions ?? [],
      position: Math.max(binding.position, runtime?.position ?? 0),
    };
  }

  private async load(key: string, request: Request) {
    const sessionKey = validSessionKey(key);
    const tenant = requestTenant(request);
    await requireConversation(this.commandContext, sessionKey, tenant);
    const binding = await this.commandContext.streams.load(runtimeBindingStreamName(sessionKey, tenant), runtimeBindingDecider);
    const runtimeSessionId = binding.state.runtimeSessionId;
    const runtime = runtimeSessionId
      ? await this.commandContext.streams.load(runtimeSessionStreamName(runtimeSessionId, tenant), runtimeSessionDecider)
      : undefined;
    return { sessionKey, binding, runtime };
  }
}
