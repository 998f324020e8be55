// Bearer-token authentication and scopes for every route except those marked @Public().
import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from './httpTypes.js';
import { type ApiToken, DEFAULT_TOKEN_NAME, scopeAllows, type TokenScope } from '../config/apiTokens.js';
import type { LedgerConfig } from '../config/config.js';
import { LedgerError } from '../errors/ledgerError.js';
import { CONFIG } from '../config/config.js';

const PUBLIC_ROUTE = 'ledger:public';
const REQUIRED_SCOPE = 'ledger:scope';
const CALLBACK_ROUTE = 'ledger:callback';

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

/**
 * A POST that a `read` token may send: the MCP endpoint, where JSON-RPC rides on POST whatever the tool does, and each
 * tool's own calls to the API need the scope their routes need.
 */
export const ReadScope = () => SetMetadata(REQUIRED_SCOPE, 'read' satisfies TokenScope);

/**
 * A route an external scheduler calls back with a bearer of its own (a JWT signed with JOBS_CALLBACK_SECRET): while
 * that secret is set, this guard only notes an API token presented there and the route's own guard decides.
 */
export const TakesCallbackToken = () => SetMetadata(CALLBACK_ROUTE, true);

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

/** The API token the request presented, if any: unlike requestPrincipal, no stand-in when authentication is off. */
export function presentedToken(request: Request): Principal | undefined {
  return (request as AuthenticatedRequest).principal;
}

/** Who a request verified by a route's own guard (a scheduler's callback) acts as. */
export function actAs(request: Request, principal: Principal): void {
  (request as AuthenticatedRequest).principal = principal;
}

// Comparing digests keeps the comparison constant-time whatever the presented token's length.
const digest = (value: string) => createHash('sha256').update(value).digest();

/** Reads need `read`, everything else `write`, @AdminOnly() routes `admin`. */
function requiredScope(request: Request, marked: TokenScope | undefined): TokenScope {
  if (marked) return marked;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

const principalOf = (token: ApiToken): Principal => ({ name: token.name, scope: token.scope, ...(token.tenant ? { tenant: token.tenant } : {}) });

@Injectable()
export class BearerTokenGuard implements CanActivate {
  private readonly tokens: { digest: Buffer; token: ApiToken }[];
  private readonly callbackTokensTaken: boolean;

  constructor(
    private readonly reflector: Reflector,
    @Inject(CONFIG) config: LedgerConfig,
  ) {
    this.tokens = config.apiTokens.map((token) => ({ digest: digest(token.secret), token }));
    this.callbackTokensTaken = config.jobs.callbackSecret !== null;
  }

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (this.callbackTokensTaken && this.reflector.getAllAndOverride<boolean>(CALLBACK_ROUTE, targets)) {
      const presented = this.tokens.length === 0 ? undefined : this.match(/^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1]);
      if (presented) request.principal = principalOf(presented);
      return true;
    }
    if (this.tokens.length === 0) return true;
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const token = this.authenticate(request.headers.authorization ?? '');
    const required = requiredScope(request, this.reflector.getAllAndOverride<TokenScope | undefined>(REQUIRED_SCOPE, targets));
    if (!scopeAllows(token.scope, required)) {
      throw new LedgerError('INSUFFICIENT_SCOPE', `this route needs a token with the ${required} scope; "${token.name}" has ${token.scope}`, 403);
    }
    request.principal = principalOf(token);
    return true;
  }

  private authenticate(header: string): ApiToken {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new LedgerError('UNAUTHORIZED', 'an Authorization: Bearer <token> header is required', 401);
    const found = this.match(match[1]);
    if (!found) throw new LedgerError('UNAUTHORIZED', 'the bearer token is not valid', 401);
    return found;
  }

  private match(secret: string | undefined): ApiToken | undefined {
    if (secret === undefined) return undefined;
    const presented = digest(secret);
    // Compare against every token so the time taken does not tell which one (or whether any) matched.
    let found: ApiToken | undefined;
    for (const candidate of this.tokens) if (timingSafeEqual(presented, candidate.digest) && !found) found = candidate.token;
    return found;
  }
}
