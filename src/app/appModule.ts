// The Nest application: infrastructure as providers, one module per capability, global guard/filter/interceptor.
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import type { Clock } from '../clock.js';
import type { LedgerConfig } from '../config/config.js';
import { BearerTokenGuard } from '../http/auth.js';
import { LedgerExceptionFilter } from '../http/errorFilter.js';
import { ReadYourWritesInterceptor } from '../http/readYourWrites.js';
import { CLOCK, CONFIG, EVENT_STORE, LOGGER, PROJECTIONS, READ_MODELS } from '../http/tokens.js';
import type { Logger } from '../logging/logger.js';
import { ProjectionsController } from '../modules/admin/projectionsController.js';
import { StreamsController } from '../modules/admin/streamsController.js';
import { ChangeConversationHandler } from '../modules/conversations/commands/changeConversation.js';
import { ResolveSessionHandler } from '../modules/conversations/commands/resolveSession.js';
import { ConversationsController } from '../modules/conversations/conversationsController.js';
import { HealthController } from '../modules/health/healthController.js';
import { Lifecycle } from '../modules/lifecycle.js';
import { ChangeSessionHandler } from '../modules/sessions/commands/changeSession.js';
import { SessionsController } from '../modules/sessions/sessionsController.js';
import { FoldedStateCache } from '../events/foldedStateCache.js';
import { StreamStateStore } from '../events/streamStateStore.js';
import type { Infrastructure } from './infrastructure.js';

export interface AppDependencies {
  config: LedgerConfig;
  logger: Logger;
  clock: Clock;
  infrastructure: Infrastructure;
}

@Module({})
export class AppModule {
  static register({ config, logger, clock, infrastructure }: AppDependencies): DynamicModule {
    const shared = [
      { provide: CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
      { provide: CLOCK, useValue: clock },
      { provide: EVENT_STORE, useValue: infrastructure.eventStore },
      { provide: READ_MODELS, useValue: infrastructure.readModels },
      { provide: PROJECTIONS, useValue: infrastructure.projections },
    ];
    return {
      module: AppModule,
      global: true,
      imports: [CqrsModule.forRoot()],
      controllers: [HealthController, ProjectionsController, StreamsController, ConversationsController, SessionsController],
      providers: [
        ...shared,
        { provide: StreamStateStore, useValue: new StreamStateStore(infrastructure.eventStore, new FoldedStateCache(config.cacheMaxEntries), clock) },
        Lifecycle,
        ResolveSessionHandler,
        ChangeConversationHandler,
        ChangeSessionHandler,
        { provide: APP_GUARD, useClass: BearerTokenGuard },
        { provide: APP_FILTER, useClass: LedgerExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor },
      ],
      exports: shared.map((provider) => provider.provide),
    };
  }
}
