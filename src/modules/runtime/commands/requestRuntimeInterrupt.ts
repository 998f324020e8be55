// A message queued to interrupt reaches the conversation's running runtime turn: InterruptRequested on its runtime session.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import { runtimeBindingDecider } from '../runtimeBindingDecider.js';
import { type RequestedInterrupt, runtimeSessionDecider } from '../runtimeSessionDecider.js';
import { ChangeRuntimeSessionCommand } from './changeRuntimeSession.js';

export class RequestRuntimeInterruptCommand extends Command<RuntimeInterruptResult> {
  constructor(
    readonly sessionKey: string,
    readonly messageId: string,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface RuntimeInterruptResult {
  /** The interrupt the running turn now carries (this message's, or an earlier one's for the same turn); null when no runtime turn runs. */
  interrupt: (RequestedInterrupt & { runtimeSessionId: string }) | null;
  position: number;
}

@CommandHandler(RequestRuntimeInterruptCommand)
export class RequestRuntimeInterruptHandler implements ICommandHandler<RequestRuntimeInterruptCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async execute({ sessionKey, messageId, metadata }: RequestRuntimeInterruptCommand): Promise<RuntimeInterruptResult> {
    const binding = await this.commandContext.streams.load(runtimeBindingStreamName(sessionKey, metadata.tenant), runtimeBindingDecider);
    const runtimeSessionId = binding.state.runtimeSessionId;
    if (runtimeSessionId === null) return { interrupt: null, position: binding.position };
    const runtime = await this.commandContext.streams.load(runtimeSessionStreamName(runtimeSessionId, metadata.tenant), runtimeSessionDecider);
    // A binding whose runtime stream a crash left unwritten has no turn to stop.
    if (runtime.state.currentTurnId === null) return { interrupt: null, position: Math.max(binding.position, runtime.position) };
    // The runtime stream decides: a turn that ended meanwhile, or one already asked to stop, writes nothing.
    const result = await this.commands.execute(new ChangeRuntimeSessionCommand(runtimeSessionId, { type: 'RequestInterrupt', messageId }, metadata));
    const interrupt = result.state.currentTurnId === null ? null : (result.state.interruptRequested ?? null);
    return { interrupt: interrupt && { runtimeSessionId, ...interrupt }, position: Math.max(binding.position, result.position) };
  }
}
