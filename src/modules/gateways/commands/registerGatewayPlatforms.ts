// A gateway's platform registry: the whole list replaces the last one, and the same list again appends nothing.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { gatewayStreamName, type RegisteredPlatform } from '../../../events/gateway/gatewayEvents.js';
import { CommandContext } from '../../commandContext.js';
import { gatewayDecider, isLiveGateway } from '../domain/gatewayDecider.js';

export interface GatewayPlatformsResult {
  gatewayId: string;
  platforms: RegisteredPlatform[];
  /** False when the list was the one already registered: nothing was appended. */
  changed: boolean;
  /** Whether the context prompt lists this gateway's platforms now (false after a stop, until the next start). */
  live: boolean;
  revision: number;
  position: number;
}

export class RegisterGatewayPlatformsCommand extends Command<GatewayPlatformsResult> {
  constructor(
    readonly gatewayId: string,
    readonly platforms: readonly RegisteredPlatform[],
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

@CommandHandler(RegisterGatewayPlatformsCommand)
export class RegisterGatewayPlatformsHandler implements ICommandHandler<RegisterGatewayPlatformsCommand> {
  constructor(private readonly commandContext: CommandContext) {}

  async execute({ gatewayId, platforms, metadata }: RegisterGatewayPlatformsCommand): Promise<GatewayPlatformsResult> {
    const result = await this.commandContext.streams.handle(
      gatewayStreamName(gatewayId, metadata.tenant),
      gatewayDecider,
      { type: 'RegisterPlatforms', platforms, now: this.commandContext.now() },
      metadata,
    );
    return {
      gatewayId,
      platforms: result.state.platforms,
      changed: result.written,
      live: isLiveGateway(result.state),
      revision: result.revision,
      position: result.position,
    };
  }
}
