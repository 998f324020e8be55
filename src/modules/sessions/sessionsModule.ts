// Sessions: turns, transcripts, memory, slots, checkpoints, rollback, children, trees, context and history.
import { Module } from '@nestjs/common';
import { ChangeSessionHandler } from './commands/changeSession.js';
import { DestroySessionHandler } from './commands/destroySession.js';
import { SpawnChildSessionHandler } from './commands/spawnChildSession.js';
import { SessionCheckpointsController } from './sessionCheckpointsController.js';
import { SessionContextController } from './sessionContextController.js';
import { SessionContextWindowController } from './sessionContextWindowController.js';
import { SessionHistoryController } from './sessionHistoryController.js';
import { SessionsController } from './sessionsController.js';
import { SessionsQueryController } from './sessionsQueryController.js';
import { SessionTreeController } from './sessionTreeController.js';

@Module({
  controllers: [
    SessionsController,
    SessionsQueryController,
    SessionCheckpointsController,
    SessionContextController,
    SessionContextWindowController,
    SessionTreeController,
    SessionHistoryController,
  ],
  providers: [ChangeSessionHandler, SpawnChildSessionHandler, DestroySessionHandler],
})
export class SessionsModule {}
