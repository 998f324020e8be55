// Starts the real Nest app over real HTTP on an isolated database, for e2e tests.
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import pg from 'pg';
import { type Clock, systemClock } from '../../src/clock.js';
import { type LedgerConfig, loadConfig } from '../../src/config/config.js';
import { createApp } from '../../src/app/createApp.js';
import { IN_MEMORY_DATA_DIR, type Infrastructure, openInfrastructure } from '../../src/app/infrastructure.js';
import { createLogger } from '../../src/logging/logger.js';
import { backendsUnderTest, uniqueSchema } from './testDatabases.js';

export interface TestApp {
  label: 'pglite' | 'postgres';
  url: string;
  config: LedgerConfig;
  app: INestApplication;
  infrastructure: Infrastructure;
  /** The position of the newest event written, read straight from the table: unlike the readable head, it never trails a write. */
  lastPosition(): Promise<number>;
  request(method: string, path: string, options?: { body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** A fixed schema prefix instead of a fresh one: several apps (or one restarted) share one database. */
  schema?: string;
  /** Leave the PostgreSQL schemas in place on close, for the next app on the same `schema`. */
  keepSchema?: boolean;
  /** Where the app's JSON log lines go (stdout when omitted), for tests that check what was logged. */
  logDestination?: NodeJS.WritableStream;
}

export async function startTestApp(label: 'pglite' | 'postgres', options: TestAppOptions = {}): Promise<TestApp> {
  const schema = options.schema ?? uniqueSchema('e2e');
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (label === 'postgres' && !databaseUrl) throw new Error('TEST_DATABASE_URL is needed for the postgres backend');
  const env: Record<string, string> = {
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    EVENT_STORE_SCHEMA: `${schema}_es`,
    READ_MODEL_SCHEMA: `${schema}_rm`,
    ...(label === 'postgres' ? { EVENT_STORE_URL: databaseUrl!, DB_POOL_SIZE: '5' } : { DATA_DIR: IN_MEMORY_DATA_DIR }),
    ...options.env,
  };
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel, options.logDestination);
  const infrastructure = await openInfrastructure(config, logger);
  const app = await createApp({ config, logger, clock: options.clock ?? systemClock, infrastructure });
  await app.listen(0, '127.0.0.1');
  // The test's fetch and the service share one event loop: a step that blocks it for seconds (opening a PGlite)
  // lets Node's 5 s keep-alive close a socket fetch is about to reuse (ECONNRESET). Tests idle longer than a minute never.
  (app.getHttpServer() as Server).keepAliveTimeout = 60_000;
  const address = (app.getHttpServer() as Server).address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  return {
    label,
    url,
    config,
    app,
    infrastructure,
    async lastPosition() {
      const result = await infrastructure.readModelPool.query<{ head: string | number | null }>(
        `SELECT max(position) AS head FROM "${config.eventStoreSchema}".events`,
      );
      return Number(result.rows[0]?.head ?? 0);
    },
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      let body: string | undefined = requestOptions.rawBody;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async close() {
      await app.close();
      await infrastructure.close();
      if (label === 'postgres' && !options.keepSchema) await dropAppSchemas(schema);
    },
  };
}

/** Drops the PostgreSQL schemas of the apps started on `schema` (the event store's and the read models'). */
export async function dropAppSchemas(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}_es" CASCADE; DROP SCHEMA IF EXISTS "${schema}_rm" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Backends an e2e file runs on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set (narrowed by TEST_BACKENDS). */
export function e2eBackends(): Array<'pglite' | 'postgres'> {
  return backendsUnderTest();
}
