// A conversation reset or suspend ends its runtime thread: Hermes drops the cached agent on /new, CliGate's /new unbinds the Codex/Claude thread.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '../../../errors/ledgerError.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import { runtimeBindingDecider } from '../domain/runtimeBindingDecider.js';
import { runtimeSessionDecider } from '../domain/runtimeSessionDecider.js';
import { ChangeRuntimeSessionCommand } from './changeRuntimeSession.js';

export type ConversationRuntimeEnd = 'conversation_reset' | 'conversation_suspended';

export class EndConversationRuntimeCommand extends Command<ConversationRuntimeEndResult> {
  constructor(
    readonly sessionKey: string,
    readonly reason: ConversationRuntimeEnd,
    /** A runtime turn in flight: refuse (409 RUNTIME_BUSY), interrupt it first (a forced reset), or unbind regardless (suspend). */
    readonly turnInFlight: 'refuse' | 'interrupt' | 'ignore',
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface ConversationRuntimeEndResult {
  detachedRuntimeSessionId: string | null;
  interruptedTurnId: string | null;
  position: number;
}

@CommandHandler(EndConversationRuntimeCommand)
export class EndConversationRuntimeHandler implements ICommandHandler<EndConversationRuntimeCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async execute({ sessionKey, reason, turnInFlight, metadata }: EndConversationRuntimeCommand): Promise<ConversationRuntimeEndResult> {
    const { commandContext } = this;
    const bindingStream = runtimeBindingStreamName(sessionKey, metadata.tenant);
    const binding = await commandContext.streams.load(bindingStream, runtimeBindingDecider);
    const runtimeSessionId = binding.state.runtimeSessionId;
    if (runtimeSessionId === null) return { detachedRuntimeSessionId: null, interruptedTurnId: null, position: binding.position };
    let interruptedTurnId: string | null = null;
    let position = binding.position;
    if (turnInFlight !== 'ignore') {
      const runtime = await commandContext.streams.load(runtimeSessionStreamName(runtimeSessionId, metadata.tenant), runtimeSessionDecider);
      if (runtime.state.currentTurnId !== null) {
        if (turnInFlight === 'refuse') {
          throw new ConflictError(
            'RUNTIME_BUSY',
            `runtime session ${runtimeSessionId} has turn ${runtime.state.currentTurnId} in flight; reset with force: true to interrupt it`,
            {
              runtimeSessionId,
              currentTurnId: runtime.state.currentTurnId,
              state: runtime.state.status,
            },
          );
        }
        const interrupted = await this.commands.execute(
          new ChangeRuntimeSessionCommand(
            runtimeSessionId,
            { type: 'Interrupt', reason: 'conversation_reset', error: 'the conversation was reset while this turn was in flight', quietSince: null },
            metadata,
          ),
        );
        const event = interrupted.decided.find((decided) => decided.type === 'RuntimeInterrupted');
        interruptedTurnId = event?.type === 'RuntimeInterrupted' ? event.data.turnId : null;
        position = Math.max(position, interrupted.position);
      }
    }
    const unbound = await commandContext.streams.handle(bindingStream, runtimeBindingDecider, { type: 'Unbind', reason, now: commandContext.now() }, metadata);
    const detached = unbound.events.find((event) => event.type === 'RuntimeDetached');
    return {
      detachedRuntimeSessionId: detached?.type === 'RuntimeDetached' ? detached.data.runtimeSessionId : null,
      interruptedTurnId,
      position: Math.max(position, unbound.position),
    };
  }
}
