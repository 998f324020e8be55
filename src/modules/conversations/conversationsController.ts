// HTTP for conversations by session key: read, update, reset, switch, suspend, resume marks, context prompt.
import { Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import type { LedgerConfig } from '../../config/config.js';
import { conversationStreamName, type ResumeReason } from '../../events/conversation/conversationEvents.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import type { AttemptCommand } from '../../events/attemptCommand.js';
import { CONFIG } from '../../config/config.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import { ReadsProjections } from '../../http/readYourWrites.js';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { livePlatformRegistry } from '../gateways/queries/livePlatformRegistry.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { hermesContextPromptFor } from '../sessions/domain/hermesContextPromptFor.js';
import { sessionContextPrompt } from '../sessions/domain/sessionContextPrompt.js';
import { sessionDecider } from '../sessions/domain/sessionDecider.js';
import { ChangeConversationCommand, type ConversationChangeResult, type RuntimeEnding } from './commands/changeConversation.js';
import { resetConversationCommand } from './commands/resetConversationCommand.js';
import { switchSessionCommand } from './commands/switchSessionCommand.js';
import { type LastPromptTokensResult, SetLastPromptTokensCommand } from './commands/setLastPromptTokens.js';
import { requirePromptTokensWithinLimit } from '../sessions/domain/usageLimits.js';
import { type ConversationCommand, conversationDecider, conversationNotFound, type OpenConversation } from './domain/conversationDecider.js';
import { conversationEntry } from './conversationEntry.js';
import {
  contextQuerySchema,
  resetRequestSchema,
  resumePendingRequestSchema,
  suspendRequestSchema,
  switchRequestSchema,
  updateConversationRequestSchema,
  validSessionKey,
} from './conversationRequests.js';
import { requestTenant } from '../../http/auth.js';

@ApiTags('conversations')
@Controller('v1')
export class ConversationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
  ) {}

  @Get('conversations/:key')
  @ApiOperation({ summary: 'The routing entry of a session key (URL-encoded)' })
  async get(@Param('key') key: string, @Req() request: Request) {
    const tenant = requestTenant(request);
    const sessionKey = validSessionKey(key);
    const conversation = await this.commandContext.streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
    if (conversation.state.status !== 'open' || conversation.state.sessionId === null) throw conversationNotFound();
    const session = await this.commandContext.streams.load(sessionStreamName(conversation.state.sessionId, tenant), sessionDecider);
    return {
      ...conversationEntry(conversation.state, session.state),
      revision: conversation.revision,
      position: Math.max(conversation.position, session.position),
    };
  }

  @Patch('conversations/:key')
  @ApiOperation({
    summary:
      "Hermes' update_session: set the current session's lastPromptTokens without a turn (LastPromptTokensSet); the count it already holds writes nothing",
  })
  @DocumentedBody(updateConversationRequestSchema, undefined, { lastPromptTokens: 1234 })
  update(
    @Param('key') key: string,
    @ValidBody(updateConversationRequestSchema) body: z.infer<typeof updateConversationRequestSchema>,
    @Req() request: Request,
  ): Promise<LastPromptTokensResult> {
    requirePromptTokensWithinLimit(body.lastPromptTokens, this.config.limits);
    return this.commands.execute(new SetLastPromptTokensCommand(validSessionKey(key), body.lastPromptTokens, requestMetadata(request)));
  }

  @Post('conversations/:key/reset')
  @HttpCode(200)
  @ApiOperation({
    summary:
      '/new, /reset: a new session for this key; the old one ends (reason reset), and so does the runtime binding unless keepRuntime (409 RUNTIME_BUSY while a runtime turn runs, unless force)',
  })
  @DocumentedBody(resetRequestSchema)
  reset(@Param('key') key: string, @ValidBody(resetRequestSchema) body: z.infer<typeof resetRequestSchema>, @Req() request: Request) {
    const command = resetConversationCommand(this.commandContext, requestTenant(request), body.displayName);
    const runtime: RuntimeEnding = body.keepRuntime ? 'keep' : { reason: 'conversation_reset', turnInFlight: body.force ? 'interrupt' : 'refuse' };
    return this.change(key, command, request, runtime);
  }

  @Post('conversations/:key/switch')
  @HttpCode(200)
  @ApiOperation({ summary: '/resume: point the key at an earlier session of this conversation' })
  @DocumentedBody(switchRequestSchema)
  switch(@Param('key') key: string, @ValidBody(switchRequestSchema) body: z.infer<typeof switchRequestSchema>, @Req() request: Request) {
    return this.change(key, switchSessionCommand(this.commandContext.streams, requestTenant(request), body.sessionId), request);
  }

  @Post('conversations/:key/suspend')
  @HttpCode(200)
  @ApiOperation({ summary: '/stop escalation: the next message starts a new session; the runtime binding ends unless keepRuntime' })
  @DocumentedBody(suspendRequestSchema)
  suspend(@Param('key') key: string, @ValidBody(suspendRequestSchema) body: z.infer<typeof suspendRequestSchema>, @Req() request: Request) {
    const runtime: RuntimeEnding = body.keepRuntime ? 'keep' : { reason: 'conversation_suspended', turnInFlight: 'ignore' };
    return this.change(key, { type: 'SuspendConversation', reason: body.reason }, request, runtime);
  }

  @Post('conversations/:key/resume-pending')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mark for soft resume (keeps the session id); 409 while suspended' })
  @DocumentedBody(resumePendingRequestSchema)
  markResumePending(
    @Param('key') key: string,
    @ValidBody(resumePendingRequestSchema) body: z.infer<typeof resumePendingRequestSchema>,
    @Req() request: Request,
  ) {
    return this.change(key, { type: 'MarkResumePending', reason: body.reason as ResumeReason }, request);
  }

  @Delete('conversations/:key/resume-pending')
  @ApiOperation({ summary: 'Clear the soft-resume mark' })
  clearResumePending(@Param('key') key: string, @Req() request: Request) {
    return this.change(key, { type: 'ClearResumePending', reason: 'manual' }, request);
  }

  @Get('conversations/:key/context')
  @ReadsProjections('stream-index')
  @ApiOperation({
    summary:
      "The session context block of the system prompt: source, user, the session's key, id and start, the live gateways' platforms and home channels; optionally with PII redacted",
  })
  @ApiQuery({
    name: 'redactPii',
    required: false,
    description:
      "true: user and chat ids hashed on the platforms where they may be (Hermes' default whatsapp, signal, telegram, bluebubbles, or as a live gateway registered piiSafe); names stay (default false)",
  })
  @ApiQuery({
    name: 'connectedPlatforms',
    required: false,
    description: 'Comma-separated platforms the agent can also reach, listed besides the registered ones',
  })
  @ApiQuery({
    name: 'format',
    required: false,
    enum: ['ledger', 'hermes'],
    description:
      "ledger (default): the service's block. hermes: Hermes' build_session_context_prompt byte for byte (its untrusted-metadata preface, delivery options and platform notes, no session key or id)",
  })
  @ApiQuery({
    name: 'minPosition',
    required: false,
    description: "Wait (bounded) until the gateway list has reached a write's position, e.g. a platform registration's",
  })
  async context(@Param('key') key: string, @ValidQuery(contextQuerySchema) query: z.infer<typeof contextQuerySchema>, @Req() request: Request) {
    const tenant = requestTenant(request);
    const sessionKey = validSessionKey(key);
    const conversation = await this.commandContext.streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
    if (conversation.state.status !== 'open' || !conversation.state.origin || !conversation.state.sessionId) throw conversationNotFound();
    // The settings the conversation was resolved with, not the server's current ones (a resolve may override them);
    // a conversation opened before they were kept falls back to the server's.
    const settings = this.config.sessions;
    const isolation = conversation.state.isolation ?? {
      groupSessionsPerUser: settings.groupSessionsPerUser,
      threadSessionsPerUser: settings.threadSessionsPerUser,
    };
    const { sessionId } = conversation.state;
    const session = await this.commandContext.streams.load(sessionStreamName(sessionId, tenant), sessionDecider);
    const registry = await livePlatformRegistry(this.readModels, this.commandContext.streams, tenant);
    const origin = conversation.state.origin;
    const prompt =
      query.format === 'hermes'
        ? hermesContextPromptFor(origin, { redactPii: query.redactPii, connectedPlatforms: query.connectedPlatforms, flags: isolation, registry })
        : sessionContextPrompt(origin, {
            redactPii: query.redactPii,
            connectedPlatforms: query.connectedPlatforms,
            flags: isolation,
            registry,
            session: { sessionKey, sessionId, startedAt: session.state.createdAt ?? conversation.state.createdAt },
          });
    return { sessionKey, sessionId, redactPii: query.redactPii, format: query.format, isolation, prompt };
  }

  private change(
    key: string,
    command: AttemptCommand<OpenConversation, ConversationCommand>,
    request: Request,
    runtime?: RuntimeEnding,
  ): Promise<ConversationChangeResult> {
    return this.commands.execute(new ChangeConversationCommand(validSessionKey(key), command, requestMetadata(request), runtime));
  }
}
