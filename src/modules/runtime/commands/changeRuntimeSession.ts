// Changes to one runtime session: worker reports, answers to approvals and questions, interruptions by the watchdog.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { commandOfAttempt, type Untimed } from '../../../events/attemptCommand.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { type RuntimeSessionEvent, runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import { type RuntimeSessionCommand, runtimeSessionDecider, runtimeSessionNotFound, type RuntimeSessionState } from '../domain/runtimeSessionDecider.js';

export type RuntimeSessionChange = Untimed<Exclude<RuntimeSessionCommand, { type: 'StartTurn' }>>;

export class ChangeRuntimeSessionCommand extends Command<RuntimeSessionChangeResult> {
  constructor(
    readonly runtimeSessionId: string,
    readonly change: RuntimeSessionChange,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface RuntimeSessionChangeResult {
  runtimeSessionId: string;
  state: RuntimeSessionState;
  changed: boolean;
  decided: RuntimeSessionEvent[];
  revision: number;
  position: number;
}

@CommandHandler(ChangeRuntimeSessionCommand)
export class ChangeRuntimeSessionHandler implements ICommandHandler<ChangeRuntimeSessionCommand> {
  constructor(private readonly commandContext: CommandContext) {}

  async execute({ runtimeSessionId, change, metadata }: ChangeRuntimeSessionCommand): Promise<RuntimeSessionChangeResult> {
    const streamName = runtimeSessionStreamName(runtimeSessionId, metadata.tenant);
    const result = await this.commandContext.streams.handle(
      streamName,
      runtimeSessionDecider,
      (state, reads) => {
        if (state.status === 'absent') throw runtimeSessionNotFound(runtimeSessionId);
        return commandOfAttempt<RuntimeSessionState, RuntimeSessionCommand>(change, { now: this.commandContext.now(), streamName, state, reads });
      },
      metadata,
    );
    return { runtimeSessionId, state: result.state, changed: result.written, decided: result.events, revision: result.revision, position: result.position };
  }
}
