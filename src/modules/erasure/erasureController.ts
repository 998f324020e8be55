// Admin: erase a person's conversation (GDPR-style): content and ids go, the lifecycle skeleton stays. See docs/erasure.md.
import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import { AdminOnly } from '../../http/auth.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { requestMetadata } from '../commandContext.js';
import { EraseConversationCommand, type EraseConversationResult } from './commands/eraseConversation.js';
import { type EraseRequest, eraseRequestSchema } from './erasureRequests.js';

@ApiTags('admin')
@AdminOnly()
@Controller('v1/admin/erase')
export class ErasureController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Erase a session key's messages and personal ids from the event log, snapshots, caches and read models, keeping the lifecycle skeleton (a retry for a key already erased answers that erasure's result, finishing it if a crash cut it short; 404 CONVERSATION_NOT_FOUND for an unknown key, 501 ERASURE_NOT_SUPPORTED on EventStoreDB)",
  })
  @DocumentedBody(eraseRequestSchema)
  erase(@ValidBody(eraseRequestSchema) body: EraseRequest, @Req() request: Request): Promise<EraseConversationResult> {
    return this.commands.execute(new EraseConversationCommand(body.sessionKey, body.tenant, requestMetadata(request)));
  }
}
