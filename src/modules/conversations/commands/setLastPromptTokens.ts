// Hermes' update_session(key, last_prompt_tokens): the current session's prompt size set without a turn.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { CommandContext } from '../../commandContext.js';
import { ChangeSessionCommand } from '../../sessions/commands/changeSession.js';
import { boundConversation, conversationDecider } from '../domain/conversationDecider.js';
import { conversationEntry, type ConversationEntry } from '../conversationEntry.js';

export class SetLastPromptTokensCommand extends Command<LastPromptTokensResult> {
  constructor(
    readonly sessionKey: string,
    readonly lastPromptTokens: number,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface LastPromptTokensResult {
  sessionKey: string;
  sessionId: string;
  /** False when the session held this count already: nothing was written. */
  changed: boolean;
  entry: ConversationEntry;
  position: number;
}

@CommandHandler(SetLastPromptTokensCommand)
export class SetLastPromptTokensHandler implements ICommandHandler<SetLastPromptTokensCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  /**
   * The count goes to the session the conversation points at when read. A reset or switch that lands in between ends
   * that session first, and the change is then refused with 409 SESSION_ENDED: a count measured on the old session
   * never lands on the new one.
   */
  async execute({ sessionKey, lastPromptTokens, metadata }: SetLastPromptTokensCommand): Promise<LastPromptTokensResult> {
    const loaded = await this.commandContext.streams.load(conversationStreamName(sessionKey, metadata.tenant), conversationDecider);
    const conversation = boundConversation(loaded.state);
    const result = await this.commands.execute(new ChangeSessionCommand(conversation.sessionId, { type: 'SetLastPromptTokens', lastPromptTokens }, metadata));
    return {
      sessionKey,
      sessionId: conversation.sessionId,
      changed: result.decided.some((event) => event.type === 'LastPromptTokensSet'),
      entry: conversationEntry(conversation, result.state),
      position: Math.max(loaded.position, result.position),
    };
  }
}
