// HTTP for POST /v1/sessions/resolve: the session an inbound message belongs to, got or created (Hermes'
// get_or_create_session).
import { Controller, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import type { Request, Response } from '../../http/httpTypes.js';
import { ClaimWithFirstAppend } from '../../idempotency/claimWithFirstAppend.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { requestMetadata } from '../commandContext.js';
import { ResolveSessionCommand, type ResolveSessionResult } from './commands/resolveSession.js';
import { resolveRequestSchema } from './conversationRequests.js';

@ApiTags('conversations')
@Controller('v1')
export class ResolveSessionController {
  constructor(private readonly commands: CommandBus) {}

  @Post('sessions/resolve')
  @ClaimWithFirstAppend()
  @ApiResponse({ status: 201, description: 'a session was created' })
  @ApiResponse({ status: 200, description: "the conversation's current session" })
  @ApiOperation({ summary: 'Get or create the session a message belongs to (201 when created, 200 otherwise)' })
  @DocumentedBody(resolveRequestSchema, undefined, { source: { platform: 'telegram', chatType: 'dm', chatId: '12345', userId: '12345', userName: 'Alice' } })
  async resolve(
    @ValidBody(resolveRequestSchema) body: z.infer<typeof resolveRequestSchema>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ResolveSessionResult> {
    const result = await this.commands.execute(
      new ResolveSessionCommand(body.source, body.options, body.forceNew, body.gatewayId, requestMetadata(request), body.activity),
    );
    response.status(result.created ? 201 : 200);
    return result;
  }
}
