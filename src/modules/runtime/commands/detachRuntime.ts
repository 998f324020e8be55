// `/new` (no task) and `/detach`: unbind the conversation's runtime session; the session itself and its history stay.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { type DetachReason, runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { CommandContext } from '../../commandContext.js';
import { runtimeBindingDecider } from '../domain/runtimeBindingDecider.js';
import { requireConversation } from './startRuntimeTurn.js';

export class DetachRuntimeCommand extends Command<DetachRuntimeResult> {
  constructor(
    readonly sessionKey: string,
    readonly reason: DetachReason,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface DetachRuntimeResult {
  sessionKey: string;
  state: 'unbound';
  detachedRuntimeSessionId: string | null;
  changed: boolean;
  position: number;
}

@CommandHandler(DetachRuntimeCommand)
export class DetachRuntimeHandler implements ICommandHandler<DetachRuntimeCommand> {
  constructor(private readonly commandContext: CommandContext) {}

  async execute({ sessionKey, reason, metadata }: DetachRuntimeCommand): Promise<DetachRuntimeResult> {
    await requireConversation(this.commandContext, sessionKey, metadata.tenant);
    const result = await this.commandContext.streams.handle(
      runtimeBindingStreamName(sessionKey, metadata.tenant),
      runtimeBindingDecider,
      { type: 'Unbind', reason, now: this.commandContext.now() },
      metadata,
    );
    const detached = result.events.find((event) => event.type === 'RuntimeDetached');
    return {
      sessionKey,
      state: 'unbound',
      detachedRuntimeSessionId: detached?.type === 'RuntimeDetached' ? detached.data.runtimeSessionId : null,
      changed: result.written,
      position: result.position,
    };
  }
}
