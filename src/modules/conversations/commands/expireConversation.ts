// The reset sweep's step on one conversation: end its session if its policy expired it and nothing keeps it busy.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '../../../errors/ledgerError.js';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { CommandContext } from '../../commandContext.js';
import { EndConversationRuntimeCommand } from '../../runtime/commands/endConversationRuntime.js';
import { conversationDecider } from '../domain/conversationDecider.js';
import { followSessionBinding } from '../sessionBinding.js';
import { loadSessionWork } from '../sessionWork.js';

export class ExpireConversationCommand extends Command<ConversationExpiryResult> {
  constructor(
    readonly sessionKey: string,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface ConversationExpiryResult {
  /** The session the sweep ended, or null when nothing was due (or something kept it busy). */
  expiredSessionId: string | null;
  position: number;
}

@CommandHandler(ExpireConversationCommand)
export class ExpireConversationHandler implements ICommandHandler<ExpireConversationCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async execute({ sessionKey, metadata }: ExpireConversationCommand): Promise<ConversationExpiryResult> {
    const { commandContext } = this;
    const result = await commandContext.streams.handle(
      conversationStreamName(sessionKey, metadata.tenant),
      conversationDecider,
      async (state, reads) => {
        const now = commandContext.now();
        if (state.status !== 'open' || state.sessionId === null)
          return { type: 'ExpireSession' as const, resetRules: commandContext.settings.reset, sessionWork: null, now };
        const sessionWork = await loadSessionWork(reads, sessionKey, state.sessionId, metadata.tenant);
        return { type: 'ExpireSession' as const, resetRules: commandContext.settings.reset, sessionWork, now };
      },
      metadata,
    );
    const expired = result.events.find((event) => event.type === 'SessionExpired');
    if (expired?.type !== 'SessionExpired') return { expiredSessionId: null, position: result.position };
    // The same follow-up as every binding's: the expired session ends in its own stream, with the policy's reason.
    const position = Math.max(
      result.position,
      await followSessionBinding(commandContext, sessionKey, result.events, metadata),
      await endRuntimeAfterPolicyReset(this.commands, sessionKey, metadata),
    );
    return { expiredSessionId: expired.data.sessionId, position };
  }
}

/**
 * After a policy reset the next session must not go on with the old runtime thread (Hermes drops its agent). A runtime
 * turn started since the check keeps its thread; the next resolve binds a new session anyway. Returns the position written.
 */
export async function endRuntimeAfterPolicyReset(commands: CommandBus, sessionKey: string, metadata: EventMetadata): Promise<number> {
  try {
    const ended = await commands.execute(new EndConversationRuntimeCommand(sessionKey, 'conversation_reset', 'refuse', metadata));
    return ended.position;
  } catch (error) {
    if (error instanceof ConflictError && error.code === 'RUNTIME_BUSY') return 0;
    throw error;
  }
}
