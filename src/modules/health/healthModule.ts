// Liveness and readiness: GET /health, GET /ready.
import { Module } from '@nestjs/common';
import { HealthController } from './healthController.js';

@Module({
  controllers: [HealthController],
  providers: [],
})
export class HealthModule {}
