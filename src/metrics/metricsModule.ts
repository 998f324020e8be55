// GET /metrics; the registry itself (LedgerMetrics) is shared infrastructure.
import { Module } from '@nestjs/common';
import { MetricsController } from './metricsController.js';

@Module({
  controllers: [MetricsController],
  providers: [],
})
export class MetricsModule {}
