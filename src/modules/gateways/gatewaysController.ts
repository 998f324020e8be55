// HTTP for gateway processes: drain (stopping/stopped) and start, the restart-recovery protocol; the platforms they serve.
import { Controller, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';
import type { RegisteredPlatform } from '../../events/gateway/gatewayEvents.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { gatewayIdSchema } from '../conversations/conversationRequests.js';
import { requestMetadata } from '../commandContext.js';
import { DEFAULT_PII_SAFE_PLATFORMS } from '../sessions/domain/piiRedaction.js';
import { RecordGatewayStartedCommand } from './commands/recordGatewayStart.js';
import { RegisterGatewayPlatformsCommand } from './commands/registerGatewayPlatforms.js';
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

// Names go into the system prompt: one line each, no control characters that could start a section of their own.
const promptLabel = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, 'names are one line without control characters or line separators');
// Telegram chat ids arrive as JSON numbers; past 2^53 a number has already lost digits, so only safe integers are taken.
const chatIdSchema = z.preprocess(
  (value) => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value),
  z
    .string({ error: 'expected a string or a safe integer' })
    .min(1)
    .max(256)
    .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, 'chat ids have no control characters or line separators'),
);
export const platformsRequestSchema = z.strictObject({
  /** The gateway's whole list: it replaces the one registered before ([] unregisters every platform). */
  platforms: z
    .array(
      z.strictObject({
        platform: z.string().regex(/^[a-z0-9_-]{1,32}$/, 'platform must match ^[a-z0-9_-]{1,32}$'),
        displayName: promptLabel.nullable().default(null),
        /** Where scheduled-job output for this platform goes by default. */
        homeChannel: z.strictObject({ chatId: chatIdSchema, name: promptLabel }).nullable().default(null),
        /** Hermes' `pii_safe`: this platform's ids may be hashed when the prompt redacts PII; omitted: Hermes' default (whatsapp, signal, telegram, bluebubbles). */
        piiSafe: z.boolean().optional(),
      }),
    )
    .max(64),
});

function registeredPlatforms(body: z.infer<typeof platformsRequestSchema>): RegisteredPlatform[] {
  const seen = new Set<string>();
  for (const { platform } of body.platforms) {
    if (seen.has(platform)) throw new ValidationError(`platform ${platform} is listed twice`, { platform }, 'DUPLICATE_PLATFORM');
    seen.add(platform);
  }
  return body.platforms.map(({ platform, displayName, homeChannel, piiSafe }) => ({
    platform,
    displayName,
    homeChannel,
    piiSafe: piiSafe ?? DEFAULT_PII_SAFE_PLATFORMS.has(platform),
  }));
}

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

  @Put('platforms')
  @ApiOperation({
    summary:
      'Register the platforms the gateway is connected to (display name, home channel, whether ids may be hashed: piiSafe): the whole list replaces the last; the same list again appends nothing',
  })
  @DocumentedBody(platformsRequestSchema, undefined, {
    platforms: [
      { platform: 'telegram', displayName: 'Hermes on Telegram', homeChannel: { chatId: '-1001234567890', name: 'Ops room' }, piiSafe: true },
      { platform: 'discord', displayName: null, homeChannel: null, piiSafe: false },
    ],
  })
  platforms(@Param('gatewayId') gatewayId: string, @ValidBody(platformsRequestSchema) body: z.infer<typeof platformsRequestSchema>, @Req() request: Request) {
    return this.commands.execute(new RegisterGatewayPlatformsCommand(validGatewayId(gatewayId), registeredPlatforms(body), requestMetadata(request)));
  }
}
