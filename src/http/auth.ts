// Bearer-token authentication and scopes for every route except those marked @Public().
import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { type ApiToken, DEFAULT_TOKEN_NAME, scopeAllows, type TokenScope } from '../config/apiTokens.js';
import type { LedgerConfig } from '../config/config.js';
import { LedgerError } from '../errors/ledgerError.js';
import { CONFIG } from '../app/tokens.js';

const PUBLIC_ROUTE = 'ledger:public';
const REQUIRED_SCOPE = 'ledger:scope';

/** Who a request acts as: the token's name (the events' `actor`), its scope, its tenant if bound to one. */
export interface Principal {
  name: string;
  scope: TokenScope;
  tenant?: string;
}

/** Liveness and readiness stay reachable without a token, for load balancers and orchestrators. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Routes that act on every tenant's data (rebuilds, prune, erase, the stream list) need an `admin` token. */
export const AdminOnly = () => SetMetadata(REQUIRED_SCOPE, 'admin' satisfies TokenScope);

// Without tokens the service binds to loopback only and every caller is the operator.
const UNAUTHENTICATED: Principal = { name: DEFAULT_TOKEN_NAME, scope: 'admin' };

type AuthenticatedRequest = Request & { principal?: Principal };

export function requestPrincipal(request: Request): Principal {
  return (request as AuthenticatedRequest).principal ?? UNAUTHENTICATED;
}

/** The tenant a request is confined to; undefined for tokens bound to none. */
export function requestTenant(request: Request): string | undefined {
  return requestPrincipal(request).tenant;
}

// Comparing digests keeps the comparison constant-time whatever the presented token's length.
const digest = (value: string) => createHash('sha256').update(value).digest();

/** Reads need `read`, everything else `write`, @AdminOnly() routes `admin`. */
function requiredScope(request: Request, marked: TokenScope | undefined): TokenScope {
  if (marked) return marked;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

@Injectable()
export class BearerTokenGuard implements CanActivate {
  private readonly tokens: { digest: Buffer; token: ApiToken }[];

  constructor(
    private readonly reflector: Reflector,
    @Inject(CONFIG) config: LedgerConfig,
  ) {
    this.tokens = config.apiTokens.map((token) => ({ digest: digest(token.secret), token }));
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.tokens.length === 0) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = this.authenticate(request.headers.authorization ?? '');
    const required = requiredScope(request, this.reflector.getAllAndOverride<TokenScope | undefined>(REQUIRED_SCOPE, targets));
    if (!scopeAllows(token.scope, required)) {
      throw new LedgerError('INSUFFICIENT_SCOPE', `this route needs a token with the ${required} scope; "${token.name}" has ${token.scope}`, 403);
    }
    request.principal = { name: token.name, scope: token.scope, ...(token.tenant ? { tenant: token.tenant } : {}) };
    return true;
  }

  private authenticate(header: string): ApiToken {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new LedgerError('UNAUTHORIZED', 'an Authorization: Bearer <token> header is required', 401);
    const presented = digest(match[1]!);
    // Compare against every token so the time taken does not tell which one (or whether any) matched.
    let found: ApiToken | undefined;
    for (const candidate of this.tokens) if (timingSafeEqual(presented, candidate.digest) && !found) found = candidate.token;
    if (!found) throw new LedgerError('UNAUTHORIZED', 'the bearer token is not valid', 401);
    return found;
  }
}
