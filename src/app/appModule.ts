// The Nest application: shared infrastructure, one module per capability, the global guard, filter and interceptors.
import { IfMatchInterceptor } from '../http/ifMatch.js';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { ConsoleModule } from '../console/consoleModule.js';
import { BearerTokenGuard } from '../http/auth.js';
import { LedgerExceptionFilter } from '../http/errorFilter.js';
import { ReadYourWritesInterceptor } from '../http/readYourWrites.js';
import { IdempotencyInterceptor } from '../idempotency/idempotencyInterceptor.js';
import { MetricsModule } from '../metrics/metricsModule.js';
import { AdminModule } from '../modules/admin/adminModule.js';
import { AgentSessionsModule } from '../modules/agentSessions/agentSessionsModule.js';
import { ConversationsModule } from '../modules/conversations/conversationsModule.js';
import { ErasureModule } from '../modules/erasure/erasureModule.js';
import { EventFeedModule } from '../modules/eventFeed/eventFeedModule.js';
import { GatewaysModule } from '../modules/gateways/gatewaysModule.js';
import { HealthModule } from '../modules/health/healthModule.js';
import { HermesImportModule } from '../modules/hermesImport/hermesImportModule.js';
import { JobsModule } from '../modules/jobs/jobsModule.js';
import { RetentionModule } from '../modules/retention/retentionModule.js';
import { McpModule } from '../modules/mcp/mcpModule.js';
import { RuntimeModule } from '../modules/runtime/runtimeModule.js';
import { SearchModule } from '../modules/search/searchModule.js';
import { SessionsModule } from '../modules/sessions/sessionsModule.js';
import type { AppDependencies } from './appDependencies.js';
import { InfrastructureModule } from './infrastructureModule.js';

@Module({})
export class AppModule {
  static register(dependencies: AppDependencies): DynamicModule {
    return {
      module: AppModule,
      // The order below does not decide routing: Fastify's router prefers a fixed path segment to a parameter
      // (/v1/jobs/fires over /v1/jobs/:id) and refuses a second route for one method and path at start.
      imports: [
        CqrsModule.forRoot(),
        InfrastructureModule.register(dependencies),
        HealthModule,
        AdminModule,
        ErasureModule.register(dependencies.infrastructure, dependencies.config),
        RetentionModule.register(dependencies.infrastructure, dependencies.config),
        ConversationsModule,
        GatewaysModule,
        SessionsModule,
        AgentSessionsModule,
        SearchModule,
        JobsModule,
        EventFeedModule,
        RuntimeModule,
        HermesImportModule,
        McpModule,
        MetricsModule,
        ConsoleModule,
      ],
      providers: [
        { provide: APP_GUARD, useClass: BearerTokenGuard },
        { provide: APP_FILTER, useClass: LedgerExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_INTERCEPTOR, useClass: IfMatchInterceptor },
      ],
    };
  }
}
