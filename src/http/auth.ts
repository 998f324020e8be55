// Bearer-token authentication for every route except those marked @Public().
import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { LedgerConfig } from '../config/config.js';
import { LedgerError } from '../errors/ledgerError.js';
import { CONFIG } from './tokens.js';

const PUBLIC_ROUTE = 'ledger:public';

/** Liveness and readiness stay reachable without a token, for load balancers and orchestrators. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

// Comparing digests keeps the comparison constant-time whatever the presented token's length.
const digest = (value: string) => createHash('sha256').update(value).digest();

@Injectable()
export class BearerTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(
    private readonly reflector: Reflector,
    @Inject(CONFIG) config: LedgerConfig,
  ) {
    this.expected = config.apiToken ? digest(config.apiToken) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) return true;
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), this.expected)) {
      throw new LedgerError('UNAUTHORIZED', match ? 'the bearer token is not valid' : 'an Authorization: Bearer <token> header is required', 401);
    }
    return true;
  }
}
