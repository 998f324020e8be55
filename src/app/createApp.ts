// Builds the HTTP application around opened infrastructure: body limits, request ids, OpenAPI, errors.
import { parse as parseQueryString } from 'node:querystring';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LedgerError } from '../errors/ledgerError.js';
import { clientErrorAnswer } from '../http/clientErrors.js';
import { sendError } from '../http/errorFilter.js';
import { jsonBodies } from '../http/jsonBodies.js';
import { finishOpenApiDocument } from '../http/openApi/finishOpenApiDocument.js';
import { incomingRequestId, requestLogging } from '../http/requestLogging.js';
import { routeGate } from '../http/routeGate.js';
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

/**
 * Longest path parameter the router takes. find-my-way's default (100 characters) would make a longer session key a
 * 404; the URL as a whole is bounded by Node's header limit (HEADERS_TOO_LARGE).
 */
const MAX_PARAM_LENGTH = 65_536;

/** Routes matched case-insensitively and with or without a trailing slash; Node's own timeouts. */
function fastifyAdapter(logger: Logger): FastifyAdapter {
  return new FastifyAdapter({
    routerOptions: {
      caseSensitive: false,
      ignoreTrailingSlash: true,
      maxParamLength: MAX_PARAM_LENGTH,
      // Repeated names become lists; a malformed escape stays as sent.
      querystringParser: (query) => parseQueryString(query),
    },
    // A `__proto__` or `constructor` member is data here (hostileInput): body-parser keeps it, so does the service.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // Node's own defaults (Fastify's are 72 s and none): a client's idle keep-alive and a slow request end alike everywhere.
    keepAliveTimeout: 5_000,
    requestTimeout: 300_000,
    // X-Request-Id in (when well formed) and out: see requestLogging.
    requestIdHeader: false,
    genReqId: incomingRequestId,
    // Fastify listens for `clientError` itself: its handler is where the parser's refusals get our error shape.
    clientErrorHandler: clientErrorAnswer(logger),
    // A path whose percent-encoding does not decode is refused by the router before any hook runs.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const refusal =
        error.code === 'FST_ERR_BAD_URL'
          ? new LedgerError('MALFORMED_URI', 'the URL holds an invalid percent-encoding', 400)
          : new LedgerError('BAD_REQUEST', error.message, 400);
      sendError(refusal, request, reply, logger);
    },
  });
}

export async function createApp(dependencies: AppDependencies): Promise<INestApplication> {
  const { config, logger } = dependencies;
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(dependencies), fastifyAdapter(logger), {
    bodyParser: false,
    logger: nestLogger(logger),
  });
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  // Hooks run in the order they are added, for every route Nest adds at init and for the not-found handler.
  requestLogging(fastify, logger);
  requestMetering(fastify, dependencies.infrastructure.metrics);
  routeGate(fastify);
  jsonBodies(fastify, { limit: config.bodyLimit, jsonDepth: config.limits.jsonDepth });

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
          .setLicense('MIT', 'https://opensource.org/license/mit')
          .addBearerAuth()
          .addSecurityRequirements('bearer')
          .build(),
      ),
    );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });

  await app.init();
  return app;
}
