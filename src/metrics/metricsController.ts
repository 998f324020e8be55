// GET /metrics: the Prometheus exposition. Any `read` token bound to no tenant may scrape it.
import { Controller, Get, Header, Req } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request } from '../http/httpTypes.js';
import { LedgerError } from '../errors/ledgerError.js';
import { requestTenant } from '../http/auth.js';
import { LedgerMetrics } from './ledgerMetrics.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheusText.js';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: LedgerMetrics) {}

  @Get()
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  @ApiProduces('text/plain')
  @ApiOperation({
    summary: 'Prometheus metrics: requests, appends, conflicts, projection lag, cache loads, queue depths, job fires, event-store errors, process',
  })
  async scrape(@Req() request: Request): Promise<string> {
    // The figures count every tenant's traffic: a tenant's token has no business seeing the others'.
    if (requestTenant(request)) throw new LedgerError('INSUFFICIENT_SCOPE', 'service-wide metrics need a token bound to no tenant', 403);
    return this.metrics.exposition();
  }
}
