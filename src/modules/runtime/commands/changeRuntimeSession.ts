// Changes to one runtime session: worker reports, answers to approvals and questions, interruptions by the watchdog.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { type RuntimeSessionEvent, runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import { type RuntimeSessionCommand, runtimeSessionDecider, runtimeSessionNotFound, type RuntimeSessionState } from '../domain/runtimeSessionDecider.js';

type WithoutTime<T> = T extends unknown ? Omit<T, 'now'> : never;
export type RuntimeSessionChange = WithoutTime<Exclude<RuntimeSessionCommand, { type: 'StartTurn' }>>;

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
    const result = await this.commandContext.streams.handle(
      runtimeSessionStreamName(runtimeSessionId, metadata.tenant),
      runtimeSessionDecider,
      (state) => {
        if (state.status === 'absent') throw runtimeSessionNotFound(runtimeSessionId);
        return { ...change, now: this.commandContext.now() } as RuntimeSessionCommand;
      },
      metadata,
    );
    return { runtimeSessionId, state: result.state, changed: result.written, decided: result.events, revision: result.revision, position: result.position };
  }
}
