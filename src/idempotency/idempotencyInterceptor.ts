// Every write under /v1 with an Idempotency-Key runs once: a repeat replays the first answer, whatever route it is.
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, type OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { ConflictError, LedgerError } from '../errors/ledgerError.js';
import { enterIdempotentWrite } from '../events/idempotentWrite.js';
import { requestTenant } from '../http/auth.js';
import { describeError } from '../http/errorFilter.js';
import { LOGGER } from '../app/tokens.js';
import type { Logger } from '../logging/logger.js';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf, REPLAYED_HEADER, requestFingerprint, WRITE_METHODS } from './idempotencyKey.js';
import { type ClaimOutcome, type HeldClaim, IdempotencyStore, type RecordedAnswer } from './idempotencyStore.js';

/** Longest poll between two looks at a key another instance is running. */
const MAX_POLL_MS = 200;

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor, OnModuleInit {
  /** Keys this process is running now: a duplicate here is woken the moment the first one is answered. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly keys: IdempotencyStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.keys.open();
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!WRITE_METHODS.has(request.method) || !request.path.startsWith('/v1/')) return next.handle();
    const key = idempotencyKeyOf(request);
    if (key === undefined) return next.handle();
    return from(this.keyed(request, context.switchToHttp().getResponse<Response>(), key, next));
  }

  private async keyed(request: Request, response: Response, key: string, next: CallHandler): Promise<unknown> {
    const outcome = await this.claimWaiting(requestTenant(request) ?? '', key, requestFingerprint(request));
    switch (outcome.kind) {
      case 'replay':
        return replay(response, outcome.answer);
      case 'reused':
        throw new LedgerError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a request with another method, path or body', 422);
      case 'in_use':
        throw new ConflictError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still running; retry shortly');
      case 'run':
        return this.run(outcome.claim, request, response, next);
      default: {
        const unknown: never = outcome;
        throw new Error(`unknown claim outcome ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** Claims the key, waiting (bounded by the lease) while another request with it runs. */
  private async claimWaiting(tenant: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
    const deadline = Date.now() + this.keys.options.leaseMs + 1_000;
    for (let pause = 10; ; pause = Math.min(MAX_POLL_MS, pause * 2)) {
      const local = this.running.get(`${tenant}\u0000${key}`);
      if (local) await Promise.race([local, sleep(Math.max(0, deadline - Date.now()))]);
      const outcome = await this.keys.claim(tenant, key, fingerprint);
      if (outcome.kind !== 'in_use' || Date.now() >= deadline) return outcome;
      if (!this.running.has(`${tenant}\u0000${key}`)) await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
    }
  }

  private async run(claim: HeldClaim, request: Request, response: Response, next: CallHandler): Promise<unknown> {
    const local = `${claim.tenant}\u0000${claim.key}`;
    let finished!: () => void;
    this.running.set(local, new Promise<void>((resolve) => (finished = resolve)));
    const renewal = setInterval(() => void this.keys.renew(claim).catch(() => undefined), this.keys.options.leaseMs / 3);
    renewal.unref();
    if (!enterIdempotentWrite(claim.write))
      this.logger.warn({ key: IDEMPOTENCY_KEY_HEADER }, 'no idempotent-write slot around this request: its events get random ids');
    try {
      let result: unknown;
      try {
        result = await lastValueFrom(next.handle(), { defaultValue: undefined });
      } catch (error) {
        const { status, body } = describeError(error);
        // A refusal is the answer; a failure of ours (5xx) is not, and the retry runs again, finishing what this one wrote.
        const recorded =
          status < 500
            ? this.keys.complete(claim, { status, body: JSON.stringify({ error: { ...body, requestId: (request as Request & { id?: string }).id } }) })
            : this.keys.release(claim);
        // The refusal still goes out when it cannot be recorded (the database is away): a retry then decides it again.
        await recorded.catch((recordingError: unknown) => this.logger.warn({ err: recordingError }, 'idempotency key outcome not recorded'));
        throw error;
      }
      const earlier = await this.keys.complete(claim, { status: response.statusCode, body: result === undefined ? null : JSON.stringify(result) });
      if (earlier) return replay(response, earlier);
      // An attempt that died after writing left no answer: this one answered from what it wrote, writing nothing again.
      if (claim.write.foundEarlierWrites) response.setHeader(REPLAYED_HEADER, 'true');
      return result;
    } finally {
      clearInterval(renewal);
      enterIdempotentWrite(undefined);
      this.running.delete(local);
      finished();
    }
  }
}

/** The recorded answer, sent as it was recorded (Nest sends a string body as it is). */
function replay(response: Response, answer: RecordedAnswer): unknown {
  response.status(answer.status);
  response.setHeader(REPLAYED_HEADER, 'true');
  if (answer.body === null) return undefined;
  response.type('application/json');
  return answer.body;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
