// HTTP for a conversation's durable message queue: the next message's slot plus a FIFO overflow, follow-ups in arrival order.
import { randomUUID } from 'node:crypto';
import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from '../../http/httpTypes.js';
import { z } from 'zod';
import { conversationStreamName, type QueuedMessage } from '../../events/conversation/conversationEvents.js';
import type { JsonObject, JsonValue } from '../../events/eventStore.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { ChangeConversationCommand } from './commands/changeConversation.js';
import { enqueueMessageCommand } from './commands/enqueueMessageCommand.js';
import { conversationDecider, conversationNotFound, queueDepth } from './domain/conversationDecider.js';
import { validSessionKey } from './conversationRequests.js';
import { requestTenant } from '../../http/auth.js';
import { jsonObject, jsonValue } from '../../http/jsonValues.js';
import type { LedgerConfig } from '../../config/config.js';
import { CONFIG } from '../../config/config.js';
import { RequestRuntimeInterruptCommand, runningRuntimeTurn, type RuntimeInterruptResult } from '../runtime/commands/requestRuntimeInterrupt.js';
import { requireMessageSizesWithinLimit } from '../sessions/messageLimits.js';

export const enqueueRequestSchema = z.strictObject({
  message: z.strictObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,128}$/)
      .optional(),
    text: z.string().max(100_000).nullable().default(null),
    media: z.array(jsonValue).max(100).default([]),
    sender: jsonObject.nullable().default(null),
    metadata: jsonObject.nullable().default(null),
  }),
  mode: z.enum(['interrupt', 'queue']).default('queue'),
});

@ApiTags('queue')
@Controller('v1/conversations/:key/queue')
export class QueueController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Queue a message, in arrival order (capped: 429 QUEUE_FULL; a message id already waiting is not queued again): interrupt (a follow-up: a running runtime turn is asked to stop, InterruptRequested; media join the waiting follow-up, QUEUE_FOLLOW_UPS) or queue (its own turn, never joined)',
  })
  @DocumentedBody(enqueueRequestSchema)
  async enqueue(@Param('key') key: string, @ValidBody(enqueueRequestSchema) body: z.infer<typeof enqueueRequestSchema>, @Req() request: Request) {
    requireMessageSizesWithinLimit([body.message], this.config.limits);
    const message: QueuedMessage = {
      id: body.message.id ?? randomUUID(),
      mode: body.mode,
      text: body.message.text,
      media: body.message.media as JsonValue[],
      sender: body.message.sender as JsonObject | null,
      metadata: body.message.metadata as JsonObject | null,
      queuedAt: this.commandContext.now(),
    };
    const metadata = requestMetadata(request);
    // The turn running when the message arrives, read before it is queued: once queued, a gateway may take it and start
    // the turn that answers it, which this message must not stop.
    const running = message.mode === 'interrupt' ? await runningRuntimeTurn(this.commandContext, validSessionKey(key), metadata.tenant) : null;
    const result = await this.commands.execute(
      new ChangeConversationCommand(validSessionKey(key), enqueueMessageCommand(this.commandContext.queueSettings, message), metadata),
    );
    const event = result.decided[0];
    // Only a message that waits to interrupt reaches the running turn; a joined or repeated one asks again, which the turn answers once.
    const interrupted: RuntimeInterruptResult | null =
      message.mode === 'interrupt' ? await this.commands.execute(new RequestRuntimeInterruptCommand(running, message.id, metadata)) : null;
    return {
      messageId: message.id,
      // Nothing decided: the same message was waiting already (a repeat), where it still is.
      placement: event && 'placement' in event.data ? event.data.placement : result.state.queue.slot?.id === message.id ? 'slot' : 'overflow',
      coalescedInto: event?.type === 'QueuedMessageReplaced' ? event.data.replacedId : null,
      depth: queueDepth(result.state),
      interruptRequested: interrupted?.interrupt ?? null,
      position: Math.max(result.position, interrupted?.position ?? 0),
    };
  }

  @Post('next')
  @HttpCode(200)
  @ApiResponse({ status: 200, description: 'the message taken' })
  @ApiResponse({ status: 204, description: 'the queue is empty' })
  @ApiOperation({ summary: 'Take the next message (the slot first, then the oldest overflow item); 204 when empty. Each message is delivered once.' })
  async next(@Param('key') key: string, @Req() request: Request, @Res({ passthrough: true }) response: Response) {
    const result = await this.commands.execute(new ChangeConversationCommand(validSessionKey(key), { type: 'DequeueMessage' }, requestMetadata(request)));
    const dequeued = result.decided.find((event) => event.type === 'MessageDequeued');
    if (!dequeued || dequeued.type !== 'MessageDequeued') {
      response.status(204);
      return undefined;
    }
    // The message as it was in the state the dequeue was decided on: concurrent callers never share one.
    const { slot, overflow } = result.decidedOn.queue;
    const taken = [slot, ...overflow].find((message) => message?.id === dequeued.data.messageId) ?? null;
    return { message: taken, from: dequeued.data.from, depth: queueDepth(result.state), position: result.position };
  }

  @Get()
  @ApiOperation({ summary: 'The slot, the overflow and the depth' })
  async get(@Param('key') key: string, @Req() request: Request) {
    const loaded = await this.commandContext.streams.load(conversationStreamName(validSessionKey(key), requestTenant(request)), conversationDecider);
    if (loaded.state.status !== 'open') throw conversationNotFound();
    return {
      slot: loaded.state.queue.slot,
      overflow: loaded.state.queue.overflow,
      depth: queueDepth(loaded.state),
      revision: loaded.revision,
      position: loaded.position,
    };
  }
}
