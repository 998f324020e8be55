// Conversations: resolve a source to its session, reset / suspend / switch / resume marks, the message queue, pruning.
import { Module } from '@nestjs/common';
import { ChangeConversationHandler } from './commands/changeConversation.js';
import { PruneConversationsHandler } from './commands/pruneConversations.js';
import { ResolveSessionHandler } from './commands/resolveSession.js';
import { ConversationsController } from './conversationsController.js';
import { QueueController } from './queueController.js';

@Module({
  controllers: [ConversationsController, QueueController],
  providers: [ResolveSessionHandler, ChangeConversationHandler, PruneConversationsHandler],
})
export class ConversationsModule {}
