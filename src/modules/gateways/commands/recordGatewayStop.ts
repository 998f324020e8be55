// A gateway's drain: mark conversations with a turn in flight; after it, clear the marks of those that drained.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '../../../events/eventStore.js';
import { gatewayStreamName } from '../../../events/gateway/gatewayEvents.js';
import { LedgerError } from '../../../errors/ledgerError.js';
import { ChangeConversationCommand } from '../../conversations/commands/changeConversation.js';
import { CommandContext } from '../../commandContext.js';
import { gatewayDecider } from '../domain/gatewayDecider.js';

/** A conversation whose change did not apply (gone, suspended), with the error code that said why. */
export interface SkippedConversation {
  sessionKey: string;
  code: string;
}

export interface GatewayStoppingResult {
  gatewayId: string;
  mode: 'restart' | 'shutdown';
  marked: string[];
  skipped: SkippedConversation[];
  position: number;
}

export interface GatewayStoppedResult {
  gatewayId: string;
  cleanShutdown: boolean;
  cleared: string[];
  stillMarked: string[];
  position: number;
}

export class RecordGatewayStoppingCommand extends Command<GatewayStoppingResult> {
  constructor(
    readonly gatewayId: string,
    readonly mode: 'restart' | 'shutdown',
    readonly activeKeys: string[],
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export class RecordGatewayStoppedCommand extends Command<GatewayStoppedResult> {
  constructor(
    readonly gatewayId: string,
    readonly drainTimedOut: string[],
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

/** Conversation changes that may not apply (gone, suspended) are reported, not fatal to the whole drain. */
async function eachConversation(commands: CommandBus, keys: string[], change: (key: string) => ChangeConversationCommand) {
  const done: string[] = [];
  const skipped: SkippedConversation[] = [];
  let position = 0;
  for (const key of keys) {
    try {
      const result = await commands.execute(change(key));
      done.push(key);
      position = Math.max(position, result.position);
    } catch (error) {
      if (!(error instanceof LedgerError) || error.status >= 500) throw error;
      skipped.push({ sessionKey: key, code: error.code });
    }
  }
  return { done, skipped, position };
}

@CommandHandler(RecordGatewayStoppingCommand)
export class RecordGatewayStoppingHandler implements ICommandHandler<RecordGatewayStoppingCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async execute({ gatewayId, mode, activeKeys, metadata }: RecordGatewayStoppingCommand): Promise<GatewayStoppingResult> {
    const recorded = await this.commandContext.streams.handle(
      gatewayStreamName(gatewayId, metadata.tenant),
      gatewayDecider,
      { type: 'RecordStopping', mode, activeKeys, now: this.commandContext.now() },
      metadata,
    );
    const reason = mode === 'restart' ? 'restart_timeout' : 'shutdown_timeout';
    const marked = await eachConversation(
      this.commands,
      activeKeys,
      (key) => new ChangeConversationCommand(key, { type: 'MarkResumePending', reason }, metadata),
    );
    return { gatewayId, mode, marked: marked.done, skipped: marked.skipped, position: Math.max(recorded.position, marked.position) };
  }
}

@CommandHandler(RecordGatewayStoppedCommand)
export class RecordGatewayStoppedHandler implements ICommandHandler<RecordGatewayStoppedCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async execute({ gatewayId, drainTimedOut, metadata }: RecordGatewayStoppedCommand): Promise<GatewayStoppedResult> {
    const recorded = await this.commandContext.streams.handle(
      gatewayStreamName(gatewayId, metadata.tenant),
      gatewayDecider,
      { type: 'RecordStopped', drainTimedOut, now: this.commandContext.now() },
      metadata,
    );
    const stopped = recorded.events.find((event) => event.type === 'GatewayStopped');
    const drainedKeys = stopped?.type === 'GatewayStopped' ? stopped.data.drainedKeys : [];
    const cleared = await eachConversation(
      this.commands,
      drainedKeys,
      (key) => new ChangeConversationCommand(key, { type: 'ClearResumePending', reason: 'drained' }, metadata),
    );
    return {
      gatewayId,
      cleanShutdown: drainTimedOut.length === 0,
      cleared: cleared.done,
      stillMarked: drainTimedOut,
      position: Math.max(recorded.position, cleared.position),
    };
  }
}
