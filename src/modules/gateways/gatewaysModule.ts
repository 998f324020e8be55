// Gateway starts and stops (the clean-shutdown marker and restart recovery) and the platforms each serves.
import { Module } from '@nestjs/common';
import { RecordGatewayStartedHandler } from './commands/recordGatewayStart.js';
import { RecordGatewayStoppedHandler, RecordGatewayStoppingHandler } from './commands/recordGatewayStop.js';
import { RegisterGatewayPlatformsHandler } from './commands/registerGatewayPlatforms.js';
import { GatewaysController } from './gatewaysController.js';

@Module({
  controllers: [GatewaysController],
  providers: [RecordGatewayStartedHandler, RecordGatewayStoppingHandler, RecordGatewayStoppedHandler, RegisterGatewayPlatformsHandler],
})
export class GatewaysModule {}
