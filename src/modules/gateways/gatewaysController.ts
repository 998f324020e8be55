// HTTP for gateway processes: drain (stopping/stopped) and start, the restart-recovery protocol.
import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { gatewayIdSchema } from '../conversations/conversationRequests.js';
import { requestMetadata } from '../commandContext.js';
import { RecordGatewayStartedCommand } from './commands/recordGatewayStart.js';
import { RecordGatewayStoppedCommand, RecordGatewayStoppingCommand } from './commands/recordGatewayStop.js';

const sessionKeys = z.array(z.string().min(1).max(2048)).max(10_000);
export const stoppingRequestSchema = z.strictObject({ activeKeys: sessionKeys.default([]), mode: z.enum(['restart', 'shutdown']).default('shutdown') });
export const stoppedRequestSchema = z.strictObject({ drainTimedOut: sessionKeys.default([]) });
export const startedRequestSchema = z.strictObject({
  bootId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'bootId must be 1-128 of A-Z a-z 0-9 . _ : -')
    .optional(),
  /** Queue a continuation (kind auto_continue) at the head of each resumed conversation's queue; default AUTO_CONTINUE. */
  autoContinue: z.boolean().optional(),
});

function validGatewayId(id: string): string {
  const parsed = gatewayIdSchema.safeParse(id);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]!.message, { gatewayId: id }, 'INVALID_GATEWAY_ID');
  return parsed.data;
}

@ApiTags('gateways')
@Controller('v1/gateways/:gatewayId')
export class GatewaysController {
  constructor(private readonly commands: CommandBus) {}

  @Post('stopping')
  @HttpCode(200)
  @ApiOperation({ summary: 'A drain begins: conversations with a turn in flight are marked resume-pending (restart_timeout / shutdown_timeout)' })
  @DocumentedBody(stoppingRequestSchema)
  stopping(@Param('gatewayId') gatewayId: string, @ValidBody(stoppingRequestSchema) body: z.infer<typeof stoppingRequestSchema>, @Req() request: Request) {
    return this.commands.execute(new RecordGatewayStoppingCommand(validGatewayId(gatewayId), body.mode, body.activeKeys, requestMetadata(request)));
  }

  @Post('stopped')
  @HttpCode(200)
  @ApiOperation({ summary: 'The drain ended: a clean-shutdown marker when nothing timed out; drained conversations are unmarked' })
  @DocumentedBody(stoppedRequestSchema)
  stopped(@Param('gatewayId') gatewayId: string, @ValidBody(stoppedRequestSchema) body: z.infer<typeof stoppedRequestSchema>, @Req() request: Request) {
    return this.commands.execute(new RecordGatewayStoppedCommand(validGatewayId(gatewayId), body.drainTimedOut, requestMetadata(request)));
  }

  @Post('started')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'The gateway started: crash recovery after an unclean stop, and the conversations to resume; autoContinue queues a continuation at the head of each (idempotent per bootId)',
  })
  @DocumentedBody(startedRequestSchema)
  started(@Param('gatewayId') gatewayId: string, @ValidBody(startedRequestSchema) body: z.infer<typeof startedRequestSchema>, @Req() request: Request) {
    return this.commands.execute(new RecordGatewayStartedCommand(validGatewayId(gatewayId), body.bootId, body.autoContinue, requestMetadata(request)));
  }
}
