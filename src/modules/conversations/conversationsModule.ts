// Conversations: resolve a source to its session, reset / suspend / switch / resume marks, the message queue, pruning, automatic resets.
import { Module } from '@nestjs/common';
import { ChangeConversationHandler } from './commands/changeConversation.js';
import { ExpireConversationHandler } from './commands/expireConversation.js';
import { PruneConversationsHandler } from './commands/pruneConversations.js';
import { SetLastPromptTokensHandler } from './commands/setLastPromptTokens.js';
import { ConversationResetSweep } from './conversationResetSweep.js';
import { ConversationsController } from './conversationsController.js';
import { ResolveSessionController, ResolveSessionHandler } from './resolveSession.js';
import { QueueController } from './queueController.js';

@Module({
  controllers: [ResolveSessionController, ConversationsController, QueueController],
  providers: [
    ResolveSessionHandler,
    ChangeConversationHandler,
    SetLastPromptTokensHandler,
    PruneConversationsHandler,
    ExpireConversationHandler,
    ConversationResetSweep,
  ],
})
export class ConversationsModule {}
