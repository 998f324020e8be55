// A message queued to interrupt reaches the conversation's running runtime turn: InterruptRequested on its runtime session.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import { runtimeBindingDecider } from '../domain/runtimeBindingDecider.js';
import { type RequestedInterrupt, runtimeSessionDecider } from '../domain/runtimeSessionDecider.js';
import { ChangeRuntimeSessionCommand } from './changeRuntimeSession.js';

/** The runtime turn a conversation is running now, if any: read before the interrupting message is queued. */
export interface RunningRuntimeTurn {
  runtimeSessionId: string;
  turnId: string;
  position: number;
}

export async function runningRuntimeTurn(commandContext: CommandContext, sessionKey: string, tenant: string | undefined): Promise<RunningRuntimeTurn | null> {
  const binding = await commandContext.streams.load(runtimeBindingStreamName(sessionKey, tenant), runtimeBindingDecider);
  const runtimeSessionId = binding.state.runtimeSessionId;
  if (runtimeSessionId === null) return null;
  const runtime = await commandContext.streams.load(runtimeSessionStreamName(runtimeSessionId, tenant), runtimeSessionDecider);
  // A binding whose runtime stream a crash left unwritten has no turn to stop.
  if (runtime.state.currentTurnId === null) return null;
  return { runtimeSessionId, turnId: runtime.state.currentTurnId, position: Math.max(binding.position, runtime.position) };
}

export class RequestRuntimeInterruptCommand extends Command<RuntimeInterruptResult> {
  constructor(
    /** The turn that was running when the message arrived (see runningRuntimeTurn); null: none, nothing to interrupt. */
    readonly running: RunningRuntimeTurn | null,
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
  constructor(private readonly commands: CommandBus) {}

  async execute({ running, messageId, metadata }: RequestRuntimeInterruptCommand): Promise<RuntimeInterruptResult> {
    if (running === null) return { interrupt: null, position: 0 };
    const { runtimeSessionId, turnId } = running;
    // The runtime stream decides: a turn that ended meanwhile (or a later one now running), or one already asked to stop, writes nothing.
    const result = await this.commands.execute(new ChangeRuntimeSessionCommand(runtimeSessionId, { type: 'RequestInterrupt', messageId, turnId }, metadata));
    const interrupt = result.state.currentTurnId === turnId ? (result.state.interruptRequested ?? null) : null;
    return { interrupt: interrupt && { runtimeSessionId, ...interrupt }, position: Math.max(running.position, result.position) };
  }
}
