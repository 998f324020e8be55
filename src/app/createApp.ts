// Builds the HTTP application around opened infrastructure: body limits, request ids, OpenAPI, errors.
import type { Server } from 'node:http';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { withIdempotentWriteSlot } from '../events/idempotentWrite.js';
import { answerClientErrors } from '../http/clientErrors.js';
import { sendError } from '../http/errorFilter.js';
import { limitJsonDepth } from '../http/jsonDepth.js';
import { finishOpenApiDocument } from '../http/openApi/finishOpenApiDocument.js';
import { requestLogging } from '../http/requestLogging.js';
import { type RouteLayer, routeGate } from '../http/routeGate.js';
import { rejectUnsupportedCharacters } from '../http/unsupportedCharacters.js';
import type { Logger } from '../logging/logger.js';
import { requestMetering } from '../metrics/requestMetering.js';
import type { AppDependencies } from './appDependencies.js';
import { AppModule } from './appModule.js';

/** Nest's own log lines go to the same pino logger as ours. */
function nestLogger(logger: Logger): LoggerService {
  const child = logger.child({ component: 'nest' });
  return {
    log: (message: unknown, context?: string) => child.debug({ context }, String(message)),
    error: (message: unknown, trace?: string, context?: string) => child.error({ context, trace }, String(message)),
    warn: (message: unknown, context?: string) => child.warn({ context }, String(message)),
    debug: (message: unknown, context?: string) => child.debug({ context }, String(message)),
    verbose: (message: unknown, context?: string) => child.trace({ context }, String(message)),
  };
}

export async function createApp(dependencies: AppDependencies): Promise<INestApplication> {
  const { config, logger } = dependencies;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(dependencies), {
    bodyParser: false,
    logger: nestLogger(logger),
  });
  app.disable('x-powered-by');
  answerClientErrors(app.getHttpServer() as Server, logger);
  app.use(requestLogging(logger));
  // Before Nest routes the request: its handler then runs inside the slot the idempotency interceptor fills.
  app.use((_request: Request, _response: Response, next: NextFunction) => withIdempotentWriteSlot(next));
  app.use(requestMetering(dependencies.infrastructure.metrics));
  const expressApp = app.getHttpAdapter().getInstance() as unknown as { router: { stack: RouteLayer[] } };
  app.use(routeGate(() => expressApp.router.stack));
  app.useBodyParser('json', { limit: config.bodyLimit, strict: false });
  app.use(limitJsonDepth(config.limits.jsonDepth));
  app.use(rejectUnsupportedCharacters);

  // Built on the first request for /openapi.json or /docs (then kept): scanning every route and converting the
  // schemas is seconds of a start that most processes never need.
  const document = () =>
    finishOpenApiDocument(
      SwaggerModule.createDocument(
        app,
        new DocumentBuilder()
          .setTitle('Session Ledger')
          .setDescription('Durable, event-sourced session lifecycle for AI-agent gateways and orchestrators')
          .setVersion('0.1.0')
          .addBearerAuth()
          .addSecurityRequirements('bearer')
          .build(),
      ),
    );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });

  await app.init();
  // Errors raised before Nest's router (body parsing) reach Express's error chain: answer them in the same shape.
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => sendError(error, request, response, logger));
  return app;
}
