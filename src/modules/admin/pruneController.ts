// Admin: prune idle routing entries.
import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import { z } from 'zod';
import { AdminOnly } from '../../http/auth.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { PruneConversationsCommand } from '../conversations/commands/pruneConversations.js';
import { requestMetadata } from '../commandContext.js';

export const pruneRequestSchema = z.strictObject({ maxAgeDays: z.number().int().min(0).max(36_500) });

@ApiTags('admin')
@AdminOnly()
@Controller('v1/admin/prune')
export class PruneController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Forget routing entries idle longer than maxAgeDays (0 disables), keeping suspended ones; events stay' })
  @DocumentedBody(pruneRequestSchema)
  prune(@ValidBody(pruneRequestSchema) body: z.infer<typeof pruneRequestSchema>, @Req() request: Request) {
    return this.commands.execute(new PruneConversationsCommand(body.maxAgeDays, requestMetadata(request)));
  }
}
