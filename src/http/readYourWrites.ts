// Read-your-writes: a query given ?minPosition=N or X-Min-Position waits (bounded) for its projections to reach N.
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from './httpTypes.js';
import { from, type Observable, switchMap } from 'rxjs';
import type { LedgerConfig } from '../config/config.js';
import { describeHorizonHolder, type LogHorizonProbe } from '../events/postgres/logHorizon.js';
import { UnavailableError, ValidationError } from '../errors/ledgerError.js';
import type { ProjectionRunner } from '../projections/projectionRunner.js';
import { CONFIG } from '../config/config.js';
import { LOG_HORIZON } from '../events/postgres/logHorizon.js';
import { PROJECTIONS } from '../projections/projectionRunner.js';

const READS_PROJECTIONS = 'ledger:reads-projections';

/** Marks a query route as served by these projections, so ?minPosition can wait for them. */
export const ReadsProjections = (...names: string[]) => SetMetadata(READS_PROJECTIONS, names);

export function requestedMinPosition(request: Request): number | undefined {
  const raw = (request.query.minPosition as string | undefined) ?? request.headers['x-min-position'];
  if (raw === undefined || raw === '') return undefined;
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text))
    throw new ValidationError('minPosition must be a non-negative whole number', { minPosition: raw }, 'INVALID_MIN_POSITION');
  return Number(text);
}

@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(LOG_HORIZON) private readonly logHorizon: LogHorizonProbe | null,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const names = this.reflector.get<string[] | undefined>(READS_PROJECTIONS, context.getHandler());
    if (!names) return next.handle();
    const minPosition = requestedMinPosition(context.switchToHttp().getRequest<Request>());
    if (minPosition === undefined) return next.handle();
    return from(this.projections.waitForPosition(names, minPosition, this.config.readWaitTimeoutMs)).pipe(
      switchMap(async (reached) => {
        if (!reached) {
          await this.blameHorizon(minPosition);
          throw new UnavailableError(
            'PROJECTION_NOT_CAUGHT_UP',
            `the read model has not reached position ${minPosition} within ${this.config.readWaitTimeoutMs} ms; retry`,
            {
              minPosition,
              projections: names,
            },
          );
        }
        return next.handle();
      }),
      switchMap((handled) => handled),
    );
  }

  /**
   * A position at or past the horizon cannot be read by anyone until the transaction holding it ends, however
   * long the wait: the caller is told which one, not that the projections are slow.
   */
  private async blameHorizon(minPosition: number): Promise<void> {
    if (!this.logHorizon) return;
    const horizon = await this.logHorizon.read().catch(() => undefined);
    // Past every transaction begun so far the position was never written: the horizon is not what stands in the way.
    if (!horizon?.holder || minPosition < horizon.firstUnreadablePosition || minPosition >= horizon.firstUnassignedPosition) return;
    const { pid, database, heldSeconds } = horizon.holder;
    throw new UnavailableError(
      'EVENT_LOG_HORIZON_HELD',
      `position ${minPosition} is not readable yet: ${describeHorizonHolder(horizon.holder)} holds back every reader of the event log (see docs/operations.md); retry once it ends`,
      { minPosition, pid, database, heldSeconds: Math.round(heldSeconds) },
    );
  }
}
