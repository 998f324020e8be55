// Every write to a /v1 route with an Idempotency-Key runs once: a repeat replays the first answer, whatever route it is.
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, type OnModuleInit } from '@nestjs/common';
import type { Request, Response } from '../http/httpTypes.js';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { ConflictError, LedgerError } from '../errors/ledgerError.js';
import { AppendClaimTakenError } from '../events/eventStoreErrors.js';
import { enterIdempotentWrite } from '../events/idempotentWrite.js';
import { requestTenant } from '../http/auth.js';
import { describeError } from '../http/errorFilter.js';
import { LOGGER } from '../logging/logger.js';
import type { Logger } from '../logging/logger.js';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf, REPLAYED_HEADER, requestFingerprint, WRITE_METHODS } from './idempotencyKey.js';
import { claimsWithFirstAppend } from './claimWithFirstAppend.js';
import { type ClaimOutcome, type HeldClaim, IdempotencyStore, type PendingClaim, type RecordedAnswer } from './idempotencyStore.js';

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
    // The route the router matched, not the path as sent: it matches /V1/…, /%761/… and an absolute-form target too.
    if (!WRITE_METHODS.has(request.method) || !request.routeOptions.url?.startsWith('/v1/')) return next.handle();
    const key = idempotencyKeyOf(request);
    if (key === undefined) return next.handle();
    const withFirstAppend = this.keys.options.claimsWithAppends === true && claimsWithFirstAppend(context.getHandler());
    return from(this.keyed(request, context.switchToHttp().getResponse<Response>(), key, next, withFirstAppend));
  }

  private async keyed(request: Request, response: Response, key: string, next: CallHandler, withFirstAppend: boolean): Promise<unknown> {
    const tenant = requestTenant(request) ?? '';
    const fingerprint = requestFingerprint(request);
    // A first attempt claims with its first append (one statement less); a duplicate running here claims as below.
    if (withFirstAppend && !this.running.has(`${tenant}\u0000${key}`)) {
      const pending = this.keys.claimWithFirstAppend(tenant, key, fingerprint);
      const answered = await this.run(pending.claim, request, response, next, { pending, fingerprint });
      // The key was taken before this attempt claimed it: it wrote nothing, and claims as any duplicate would.
      if (answered !== CLAIM_AGAIN) return answered;
    }
    const outcome = await this.claimWaiting(tenant, key, fingerprint);
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

  /**
   * Runs the route under `claim`. `first`: a first attempt whose claim is made with its first append (PendingClaim);
   * while not made, its answer is recorded as a new row, and CLAIM_AGAIN says the key was taken meanwhile.
   */
  private async run(
    claim: HeldClaim,
    request: Request,
    response: Response,
    next: CallHandler,
    first?: { pending: PendingClaim; fingerprint: string },
  ): Promise<unknown> {
    const local = `${claim.tenant}\u0000${claim.key}`;
    const unclaimed = () => first !== undefined && !first.pending.held;
    let finished!: () => void;
    const running = new Promise<void>((resolve) => (finished = resolve));
    this.running.set(local, running);
    const renewal = setInterval(() => void (unclaimed() ? undefined : this.keys.renew(claim).catch(() => undefined)), this.keys.options.leaseMs / 3);
    renewal.unref();
    if (!enterIdempotentWrite(claim.write))
      this.logger.warn({ key: IDEMPOTENCY_KEY_HEADER }, 'no idempotent-write slot around this request: its events get random ids');
    try {
      let result: unknown;
      try {
        result = await lastValueFrom(next.handle(), { defaultValue: undefined });
      } catch (error) {
        if (error instanceof AppendClaimTakenError && unclaimed()) return CLAIM_AGAIN;
        const { status, body } = describeError(error);
        const refusal = () => ({ status, body: JSON.stringify({ error: { ...body, requestId: request.id } }) });
        // Nothing written and the key not claimed: the refusal is recorded with its claim, unless a duplicate took the key.
        if (status < 500 && unclaimed()) {
          const recorded = await this.keys.recordAnswer(first!.pending, first!.fingerprint, refusal()).catch((recordingError: unknown) => {
            this.logger.warn({ err: recordingError }, 'idempotency key outcome not recorded');
            return true;
          });
          if (!recorded) return CLAIM_AGAIN;
          throw error;
        }
        // A refusal is the answer; a failure of ours (5xx) is not, and the retry runs again, finishing what this one wrote.
        const recorded = status < 500 ? this.keys.complete(claim, refusal()) : this.keys.release(claim);
        // The refusal still goes out when it cannot be recorded (the database is away): a retry then decides it again.
        await recorded.catch((recordingError: unknown) => this.logger.warn({ err: recordingError }, 'idempotency key outcome not recorded'));
        throw error;
      }
      const answer = { status: response.statusCode, body: result === undefined ? null : JSON.stringify(result) };
      if (unclaimed()) return (await this.keys.recordAnswer(first!.pending, first!.fingerprint, answer)) ? result : CLAIM_AGAIN;
      const earlier = await this.keys.complete(claim, answer);
      if (earlier) return replay(response, earlier);
      // An attempt that died after writing left no answer: this one answered from what it wrote, writing nothing again.
      if (claim.write.foundEarlierWrites) response.header(REPLAYED_HEADER, 'true');
      return result;
    } finally {
      clearInterval(renewal);
      enterIdempotentWrite(undefined);
      // Only this run's entry: a first attempt that went back to claiming may find another run of the key here by then.
      if (this.running.get(local) === running) this.running.delete(local);
      finished();
    }
  }
}

/** What `run` answers when a first attempt found its key taken before it claimed it (it wrote nothing). */
const CLAIM_AGAIN = Symbol('claim again');

/** The recorded answer, sent as it was recorded (Nest sends a string body as it is). */
function replay(response: Response, answer: RecordedAnswer): unknown {
  response.status(answer.status);
  response.header(REPLAYED_HEADER, 'true');
  if (answer.body === null) return undefined;
  response.type('application/json; charset=utf-8');
  return answer.body;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
