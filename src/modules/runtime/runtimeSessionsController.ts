// HTTP for runtime sessions: the worker's reports, answers to approvals and questions, and one session's record.
import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { z } from 'zod';
import { runtimeBindingStreamName } from '../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../events/runtime/runtimeSessionEvents.js';
import { requestTenant } from '../../http/auth.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { ChangeRuntimeSessionCommand, type RuntimeSessionChange, type RuntimeSessionChangeResult } from './commands/changeRuntimeSession.js';
import { runtimeBindingDecider } from './domain/runtimeBindingDecider.js';
import { approvalRequestSchema, questionAnswerRequestSchema, validWaitId, workerEventRequestSchema, workerReport } from './runtimeRequests.js';
import { runtimeSessionDecider, runtimeSessionNotFound } from './domain/runtimeSessionDecider.js';
import { validRuntimeSessionId } from './runtimeSessionId.js';
import { runtimeSessionView } from './runtimeViews.js';

@ApiTags('runtime')
@Controller('v1/runtime-sessions/:id')
export class RuntimeSessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
  ) {}

  @Post('events')
  @HttpCode(200)
  @ApiOperation({ summary: 'The worker reports: started, progress, question, approval_request, approval_resolved, completed, failed' })
  @DocumentedBody(workerEventRequestSchema)
  async report(@Param('id') id: string, @ValidBody(workerEventRequestSchema) body: z.infer<typeof workerEventRequestSchema>, @Req() request: Request) {
    const result = await this.change(id, { type: 'ReportWorkerEvent', ...workerReport(body) }, request);
    return {
      runtimeSessionId: result.runtimeSessionId,
      state: result.state.status,
      currentTurnId: result.state.currentTurnId,
      /** A worker that reports learns here that its turn was asked to stop. */
      interruptRequested: result.state.interruptRequested ?? null,
      changed: result.changed,
      revision: result.revision,
      position: result.position,
    };
  }

  @Post('approvals/:approvalId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Answer an approval request: allow or deny, remembered for none, the session or the conversation' })
  @DocumentedBody(approvalRequestSchema)
  async approve(
    @Param('id') id: string,
    @Param('approvalId') approvalId: string,
    @ValidBody(approvalRequestSchema) body: z.infer<typeof approvalRequestSchema>,
    @Req() request: Request,
  ) {
    const result = await this.change(
      id,
      { type: 'ResolveApproval', approvalId: validWaitId(approvalId, 'approvalId'), decision: body.decision, remember: body.remember },
      request,
    );
    return {
      runtimeSessionId: result.runtimeSessionId,
      approvalId,
      decision: body.decision,
      remember: body.remember,
      state: result.state.status,
      changed: result.changed,
      revision: result.revision,
      position: result.position,
    };
  }

  @Post('questions/:questionId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Answer a question the worker asked' })
  @DocumentedBody(questionAnswerRequestSchema)
  async answer(
    @Param('id') id: string,
    @Param('questionId') questionId: string,
    @ValidBody(questionAnswerRequestSchema) body: z.infer<typeof questionAnswerRequestSchema>,
    @Req() request: Request,
  ) {
    const result = await this.change(id, { type: 'AnswerQuestion', questionId: validWaitId(questionId, 'questionId'), answer: body.answer }, request);
    return {
      runtimeSessionId: result.runtimeSessionId,
      questionId,
      state: result.state.status,
      changed: result.changed,
      revision: result.revision,
      position: result.position,
    };
  }

  @Get()
  @ApiOperation({ summary: 'One runtime session: provider, model, state, turns, last error, bound conversations, waits' })
  async get(@Param('id') id: string, @Req() request: Request) {
    const tenant = requestTenant(request);
    const runtime = await this.commandContext.streams.load(runtimeSessionStreamName(validRuntimeSessionId(id), tenant), runtimeSessionDecider);
    if (runtime.state.status === 'absent') throw runtimeSessionNotFound(id);
    // Only the conversation that started it can bind it (there is no rebind to another conversation): check that one still does.
    const { sessionKey } = runtime.state;
    const binding = await this.commandContext.streams.load(runtimeBindingStreamName(sessionKey, tenant), runtimeBindingDecider);
    const boundConversations = binding.state.runtimeSessionId === id ? [sessionKey] : [];
    return { ...runtimeSessionView(runtime.state, boundConversations), revision: runtime.revision, position: Math.max(runtime.position, binding.position) };
  }

  private change(id: string, change: RuntimeSessionChange, request: Request): Promise<RuntimeSessionChangeResult> {
    return this.commands.execute(new ChangeRuntimeSessionCommand(validRuntimeSessionId(id), change, requestMetadata(request)));
  }
}
