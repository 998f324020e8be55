// `/new` (no task) and `/detach`: unbind the conversation's runtime session; the session itself and its history stay.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { type DetachReason, runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { Lifecycle } from '../../lifecycle.js';
import { runtimeBindingDecider } from '../runtimeBindingDecider.js';
import { requireConversation } from './startRuntimeTurn.js';

export class DetachRuntimeCommand {
  constructor(
    readonly sessionKey: string,
    readonly reason: DetachReason,
    readonly metadata: EventMetadata,
  ) {}
}

export interface DetachRuntimeResult {
  sessionKey: string;
  state: 'unbound';
  detachedRuntimeSessionId: string | null;
  changed: boolean;
  position: number;
}

@CommandHandler(DetachRuntimeCommand)
export class DetachRuntimeHandler implements ICommandHandler<DetachRuntimeCommand, DetachRuntimeResult> {
  constructor(private readonly lifecycle: Lifecycle) {}

  async execute({ sessionKey, reason, metadata }: DetachRuntimeCommand): Promise<DetachRuntimeResult> {
    await requireConversation(this.lifecycle, sessionKey, metadata.tenant);
    const result = await this.lifecycle.streams.handle(
      runtimeBindingStreamName(sessionKey, metadata.tenant),
      runtimeBindingDecider,
      { type: 'Unbind', reason, now: this.lifecycle.now() },
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
