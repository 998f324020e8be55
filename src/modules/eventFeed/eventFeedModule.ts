// The lifecycle event feed: GET /v1/events as server-sent events.
import { Module } from '@nestjs/common';
import { EventStreamController } from './eventStreamController.js';

@Module({
  controllers: [EventStreamController],
  providers: [],
})
export class EventFeedModule {}
