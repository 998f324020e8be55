// API_TOKEN: one bare secret, or several named tokens `name:scope[:tenant]=secret` separated by commas.
export const TOKEN_SCOPES = ['read', 'write', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export interface ApiToken {
  /** Recorded as the `actor` of every event the token's requests cause. */
  name: string;
  scope: TokenScope;
  /** A tenant-bound token sees and touches only that tenant's conversations, sessions, jobs and events. */
  tenant?: string;
  secret: string;
}

/** The name a bare API_TOKEN acts under; also the actor without any token (loopback only). */
export const DEFAULT_TOKEN_NAME = 'api';

const NAMED_TOKEN = /^([A-Za-z0-9_.-]{1,64}):([a-z]+)(?::([^=]*))?=(.*)$/s;
// No '-': a tenant's stream names must never read as an unscoped `<category>-…` name (see streamScope.ts).
const TENANT = /^[a-z0-9][a-z0-9_]{0,62}$/;
const MIN_SECRET_LENGTH = 16;

export const TENANT_RULE = '1-63 of a-z 0-9 _ (no -), starting with a letter or digit';

export function isTenantName(value: string): boolean {
  return TENANT.test(value);
}

/** Parses API_TOKEN; throws an Error whose message names the offending entry (never its secret). */
export function parseApiTokens(value: string): ApiToken[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) throw new Error('holds no token');
  const tokens = entries.map((entry, index) => parseEntry(entry, index, entries.length));
  const names = new Set<string>();
  const secrets = new Set<string>();
  for (const token of tokens) {
    if (names.has(token.name)) throw new Error(`token name "${token.name}" is used twice`);
    if (secrets.has(token.secret)) throw new Error(`token "${token.name}" has the same secret as another token`);
    names.add(token.name);
    secrets.add(token.secret);
  }
  return tokens;
}

function parseEntry(entry: string, index: number, count: number): ApiToken {
  const named = NAMED_TOKEN.exec(entry);
  if (!named) {
    if (count > 1) throw new Error(`entry ${index + 1} must be name:scope[:tenant]=secret when several tokens are given`);
    return { name: DEFAULT_TOKEN_NAME, scope: 'admin', secret: checkedSecret(entry, DEFAULT_TOKEN_NAME) };
  }
  const [, name, scope, tenant, secret] = named as unknown as [string, string, string, string | undefined, string];
  if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) throw new Error(`token "${name}": scope must be one of ${TOKEN_SCOPES.join(', ')}, got "${scope}"`);
  if (tenant !== undefined) {
    if (!isTenantName(tenant)) throw new Error(`token "${name}": tenant must be ${TENANT_RULE}`);
    // Admin routes (rebuilds, prune, erase, the stream list) act on every tenant's data at once.
    if (scope === 'admin') throw new Error(`token "${name}": a tenant-bound token cannot have the admin scope`);
  }
  return { name, scope: scope as TokenScope, ...(tenant !== undefined ? { tenant } : {}), secret: checkedSecret(secret, name) };
}

function checkedSecret(secret: string, name: string): string {
  if (secret.length < MIN_SECRET_LENGTH) throw new Error(`token "${name}": the secret must be at least ${MIN_SECRET_LENGTH} characters`);
  if (/\s/.test(secret)) throw new Error(`token "${name}": the secret must not contain whitespace`);
  return secret;
}

/** read < write < admin: a scope grants everything below it. */
export function scopeAllows(granted: TokenScope, required: TokenScope): boolean {
  return TOKEN_SCOPES.indexOf(granted) >= TOKEN_SCOPES.indexOf(required);
}
