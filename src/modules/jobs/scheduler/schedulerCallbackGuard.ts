// The fire route's own guard while JOBS_CALLBACK_SECRET is set: the scheduler's callback token for this job and slot, or an admin token.
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from '../../../http/httpTypes.js';
import { CLOCK } from '../../../clock.js';
import { CONFIG } from '../../../config/config.js';
import type { Clock } from '../../../clock.js';
import type { LedgerConfig } from '../../../config/config.js';
import { actAs, presentedToken } from '../../../http/auth.js';
import { callbackKey, verifyCallbackToken } from './callbackToken.js';

/** The events a callback writes name this actor. */
export const SCHEDULER_ACTOR = 'scheduler';

@Injectable()
export class SchedulerCallbackGuard implements CanActivate {
  private readonly key: Uint8Array | null;

  constructor(
    @Inject(CONFIG) config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.key = config.jobs.callbackSecret === null ? null : callbackKey(config.jobs.callbackSecret);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.key) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const token = presentedToken(request);
    // A person firing by hand.
    if (token?.scope === 'admin') return true;
    // Any other API token is not the scheduler's token: the fire still needs one.
    const bearer = token ? null : (/^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1] ?? null);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const claims = await verifyCallbackToken(bearer, this.key, { jobId: String(request.params.id), slot: body.slot, now: this.clock.now() });
    // A callback that names no slot fires the token's.
    if (body.slot === undefined) request.body = { ...body, slot: claims.slot };
    actAs(request, { name: SCHEDULER_ACTOR, scope: 'write', ...(claims.tenant ? { tenant: claims.tenant } : {}) });
    return true;
  }
}
