// Gateway starts and stops: the clean-shutdown marker and restart recovery.
import { Module } from '@nestjs/common';
import { RecordGatewayStartedHandler } from './commands/recordGatewayStart.js';
import { RecordGatewayStoppedHandler, RecordGatewayStoppingHandler } from './commands/recordGatewayStop.js';
import { GatewaysController } from './gatewaysController.js';

@Module({
  controllers: [GatewaysController],
  providers: [RecordGatewayStartedHandler, RecordGatewayStoppingHandler, RecordGatewayStoppedHandler],
})
export class GatewaysModule {}
