// A reference scheduler for Session Ledger's job timers: takes one-shot registrations over HTTP, calls each back at its slot with a signed token.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';

/** One timer: call `callbackUrl` at `slot`. Keyed by tenant, job and slot, so registering it again changes nothing. */
export interface Registration {
  jobId: string;
  slot: string;
  callbackUrl: string;
  tenant?: string;
  /** Callbacks tried so far that got no final answer (network error or 5xx). */
  attempts: number;
}

export interface CallbackOutcome {
  jobId: string;
  slot: string;
  /** The service's status, or 0 when it was not reached. */
  status: number;
  /** The service's error code, when it refused. */
  code?: string;
}

export interface ReferenceSchedulerOptions {
  /** JOBS_CALLBACK_SECRET: the HS256 key of the callback tokens. */
  secret: string;
  /** The scheduler's clock (tests pass the service's manual clock). */
  now?: () => Date;
  /** exp - iat of each callback token; the service takes at most 300. */
  tokenLifetimeSeconds?: number;
}

const keyOf = (registration: { tenant?: string; jobId: string; slot: string }) =>
  JSON.stringify([registration.tenant ?? '', registration.jobId, Date.parse(registration.slot)]);

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
  });
}

const text = (value: unknown, max: number) => typeof value === 'string' && value.length > 0 && value.length <= max;

function answer(response: ServerResponse, status: number, body?: unknown): void {
  response.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
}

export class ReferenceScheduler {
  private readonly timers = new Map<string, Registration>();
  private readonly key: Uint8Array;
  private readonly now: () => Date;
  private readonly lifetime: number;
  private server?: Server;
  private ticker?: NodeJS.Timeout;
  private running: Promise<CallbackOutcome[]> = Promise.resolve([]);

  constructor(options: ReferenceSchedulerOptions) {
    this.key = new TextEncoder().encode(options.secret);
    this.now = options.now ?? (() => new Date());
    this.lifetime = Math.min(options.tokenLifetimeSeconds ?? 60, 300);
  }

  /** Starts serving; answers the registration URL to give the service as JOBS_SCHEDULER_URL. */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch(() => answer(response, 500, { error: 'internal' }));
    });
    server.listen(port, host);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    this.server = server;
    const address = server.address() as AddressInfo;
    return `http://${host}:${address.port}/registrations`;
  }

  /** Calls back due registrations every `intervalMs` (the standalone scheduler; tests call runDue themselves). */
  startTimer(intervalMs: number): void {
    this.ticker = setInterval(() => void this.runDue(), intervalMs);
  }

  async close(): Promise<void> {
    clearInterval(this.ticker);
    await this.running;
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  registrations(): Registration[] {
    return [...this.timers.values()].sort((a, b) => Date.parse(a.slot) - Date.parse(b.slot) || (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
  }

  /**
   * Calls back every registration whose slot has come. A 2xx or 4xx answer ends it (fired, or refused for good: already
   * fired, paused, gone); no answer or a 5xx keeps it for the next pass, with a fresh token.
   */
  runDue(): Promise<CallbackOutcome[]> {
    const run = this.running.then(() => this.callBackDue());
    this.running = run.catch(() => []);
    return run;
  }

  private async callBackDue(): Promise<CallbackOutcome[]> {
    const now = this.now();
    const due = this.registrations().filter((registration) => Date.parse(registration.slot) <= now.getTime());
    const outcomes: CallbackOutcome[] = [];
    for (const registration of due) {
      const outcome = await this.callBack(registration, now);
      outcomes.push(outcome);
      if (outcome.status >= 200 && outcome.status < 500) this.timers.delete(keyOf(registration));
      else registration.attempts += 1;
    }
    return outcomes;
  }

  private async callBack(registration: Registration, now: Date): Promise<CallbackOutcome> {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({ slot: registration.slot, ...(registration.tenant ? { tenant: registration.tenant } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(registration.jobId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.lifetime)
      .sign(this.key);
    const outcome: CallbackOutcome = { jobId: registration.jobId, slot: registration.slot, status: 0 };
    try {
      const response = await fetch(registration.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ slot: registration.slot }),
        signal: AbortSignal.timeout(10_000),
      });
      outcome.status = response.status;
      const body = (await response.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
      if (body?.error?.code) outcome.code = body.error.code;
    } catch {
      // Not reached: kept for the next pass.
    }
    return outcome;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://scheduler').pathname;
    if (request.method === 'GET' && path === '/registrations') return answer(response, 200, { registrations: this.registrations() });
    if (request.method !== 'POST') return answer(response, 405, { error: 'method not allowed' });
    const body = (await readJson(request)) as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || !text(body.jobId, 128) || (body.tenant !== undefined && !text(body.tenant, 128))) {
      return answer(response, 400, { error: 'jobId (and tenant, if any) must be text' });
    }
    const target = { jobId: body.jobId as string, ...(body.tenant ? { tenant: body.tenant as string } : {}) };
    if (path === '/registrations') {
      if (!text(body.slot, 64) || Number.isNaN(Date.parse(body.slot as string))) return answer(response, 400, { error: 'slot must be an ISO 8601 time' });
      if (!text(body.callbackUrl, 2048) || !/^https?:\/\//.test(body.callbackUrl as string))
        return answer(response, 400, { error: 'callbackUrl must be http(s)' });
      const registration: Registration = { ...target, slot: body.slot as string, callbackUrl: body.callbackUrl as string, attempts: 0 };
      const key = keyOf(registration);
      const existing = this.timers.get(key);
      if (!existing) this.timers.set(key, registration);
      return answer(response, existing ? 200 : 201, { registered: true, created: !existing });
    }
    if (path === '/registrations/cancel') {
      let cancelled = 0;
      for (const [key, registration] of this.timers) {
        if (registration.jobId === target.jobId && (registration.tenant ?? '') === (target.tenant ?? '')) {
          this.timers.delete(key);
          cancelled += 1;
        }
      }
      return answer(response, 200, { cancelled });
    }
    return answer(response, 404, { error: 'not found' });
  }
}
