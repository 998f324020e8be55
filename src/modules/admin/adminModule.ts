// Operator routes: projection status and rebuilds, raw streams, pruning old conversations.
import { Module } from '@nestjs/common';
import { ProjectionsController } from './projectionsController.js';
import { PruneController } from './pruneController.js';
import { PruneScheduler } from './pruneScheduler.js';
import { StreamsController } from './streamsController.js';

@Module({
  controllers: [ProjectionsController, StreamsController, PruneController],
  providers: [PruneScheduler],
})
export class AdminModule {}
