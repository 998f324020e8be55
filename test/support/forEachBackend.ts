// One started service per backend under test, with the typed client the tests speak through: the set-up block every
// e2e file would otherwise repeat. Raw HTTP (`service.request`) stays for what a client never sends: malformed bodies,
// odd headers, paths spelled differently.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { LedgerApiError, LedgerClient, type LedgerClientOptions } from '../../src/client/index.js';
import { backendsUnderTest, type BackendLabel, uniqueSchema } from './testDatabases.js';
import { dropAppSchemas, startTestApp, type TestApp, type TestAppOptions } from './testApp.js';

export interface Ledger {
  readonly backend: BackendLabel;
  /** The started service: its URL, raw requests, its infrastructure. */
  readonly service: TestApp;
  /**
   * The typed client, as a user's code holds it, except that it neither retries nor adds an Idempotency-Key of its
   * own: a test sees the service's first answer to exactly the request it wrote.
   */
  readonly client: LedgerClient;
  /** Another client of the same service (its own read-your-writes position, its own options). */
  newClient(options?: Partial<LedgerClientOptions>): LedgerClient;
  /**
   * Only with `{ restartable: true }`: stops the service and starts a new one on the same storage (a data folder on
   * disk for PGlite, the same schemas on PostgreSQL), as a process restart would; `service` and `client` are then the
   * new ones. Clients made before talk to the old URL.
   */
  restart(): Promise<void>;
}

export interface ForEachBackendOptions extends TestAppOptions {
  /** Storage that outlives the service, for `ledger.restart()`; removed after the block. */
  restartable?: boolean;
}

/**
 * `describe(title: backend)` for each backend under test (PGlite always, PostgreSQL when TEST_DATABASE_URL is set),
 * the service started once for the block and closed after it. `ledger`'s fields are readable from the first hook or
 * test on.
 */
export function forEachBackend(
  title: string,
  body: (ledger: Ledger) => void,
  options: ForEachBackendOptions | ((backend: BackendLabel) => ForEachBackendOptions) = {},
): void {
  for (const backend of backendsUnderTest()) {
    describe(`${title} (${backend})`, () => {
      let started: { service: TestApp; client: LedgerClient } | undefined;
      let dataDir: string | undefined;
      const schema = uniqueSchema('e2e');
      const { restartable = false, ...appOptions } = typeof options === 'function' ? options(backend) : options;
      /** A restartable service keeps its storage on close, for the next one: a fixed schema, a data folder on disk. */
      const start = async () => {
        if (!restartable) return startTestApp(backend, appOptions);
        return startTestApp(backend, {
          ...appOptions,
          schema: appOptions.schema ?? schema,
          keepSchema: true,
          env: { ...appOptions.env, ...(backend === 'pglite' ? { DATA_DIR: dataDir! } : {}) },
        });
      };
      const running = () => {
        if (!started) throw new Error(`the ${backend} service is not started yet: use ledger inside a hook or a test`);
        return started;
      };
      const clientOf = (service: TestApp, extra: Partial<LedgerClientOptions> = {}) =>
        new LedgerClient({ baseUrl: service.url, retry: { maxAttempts: 1 }, idempotencyKeys: false, ...extra });
      const ledger: Ledger = {
        backend,
        get service() {
          return running().service;
        },
        get client() {
          return running().client;
        },
        newClient: (extra) => clientOf(running().service, extra),
        async restart() {
          if (!restartable) throw new Error('ledger.restart() needs forEachBackend(…, { restartable: true })');
          const { service } = running();
          started = undefined;
          await service.close();
          const next = await start();
          started = { service: next, client: clientOf(next) };
        },
      };
      beforeAll(async () => {
        if (restartable && backend === 'pglite') dataDir = await mkdtemp(join(tmpdir(), 'ledger-e2e-'));
        const service = await start();
        started = { service, client: clientOf(service) };
      }, 180_000);
      afterAll(async () => {
        await started?.service.close();
        started = undefined;
        if (dataDir) await rm(dataDir, { recursive: true, force: true });
        if (restartable && backend === 'postgres' && !appOptions.keepSchema) await dropAppSchemas(appOptions.schema ?? schema);
      });
      body(ledger);
    });
  }
}

/** The refusal a client call ends in: its status and code. A call that succeeds fails the test. */
export async function refusalOf(call: Promise<unknown>): Promise<{ status: number; code: string }> {
  const { status, code } = await apiErrorOf(call);
  return { status, code };
}

/** The whole error a refused client call throws, for a test that reads its message or details too. A call that succeeds fails the test. */
export async function apiErrorOf(call: Promise<unknown>): Promise<LedgerApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof LedgerApiError) return error;
    throw error;
  }
  throw new Error('expected the service to refuse the call, and it was carried out');
}
