// The scheduler's callback token: an HS256 JWT naming the job (`sub`) and the slot it fires, living at most five minutes.
import { errors, jwtVerify } from 'jose';
import { isTenantName, TENANT_RULE } from '../../../config/apiTokens.js';
import { LedgerError } from '../../../errors/ledgerError.js';

/** Longest lifetime (exp - iat) a callback token may claim. */
export const CALLBACK_TOKEN_MAX_LIFETIME_SECONDS = 300;
/**
 * How far ahead of this service's clock a token may say it was issued: a scheduler's clock may run a little fast, but
 * a token dated further ahead would live until long after its claimed five minutes.
 */
export const CALLBACK_TOKEN_CLOCK_SKEW_SECONDS = 60;

export interface CallbackClaims {
  jobId: string;
  /** The slot as the token names it (ISO 8601). */
  slot: string;
  tenant?: string;
}

type CallbackRefusal =
  'CALLBACK_TOKEN_MISSING' | 'CALLBACK_TOKEN_INVALID' | 'CALLBACK_TOKEN_EXPIRED' | 'CALLBACK_TOKEN_WRONG_JOB' | 'CALLBACK_TOKEN_WRONG_SLOT';

const refused = (code: CallbackRefusal, message: string, details?: Record<string, unknown>) => new LedgerError(code, message, 401, details);

export function callbackKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/**
 * Verifies a fire's callback token for job `jobId` and, when the request names one, slot `slot`; answers the claims.
 * Each refusal is 401 with its own code, so a scheduler's operator can tell a clock problem from a wrong secret.
 */
export async function verifyCallbackToken(
  token: string | null,
  key: Uint8Array,
  expected: { jobId: string; slot?: unknown; now: Date },
): Promise<CallbackClaims> {
  if (token === null) {
    throw refused(
      'CALLBACK_TOKEN_MISSING',
      "a fire needs the scheduler's callback token (Authorization: Bearer <JWT signed with JOBS_CALLBACK_SECRET>) or an admin token",
    );
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, key, { algorithms: ['HS256'], currentDate: expected.now, requiredClaims: ['sub', 'iat', 'exp', 'slot'] }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw refused('CALLBACK_TOKEN_EXPIRED', 'the callback token has expired');
    const reason = error instanceof errors.JWSSignatureVerificationFailed ? 'its signature does not match JOBS_CALLBACK_SECRET' : (error as Error).message;
    throw refused('CALLBACK_TOKEN_INVALID', `the callback token is not valid: ${reason}`);
  }
  const { sub, iat, exp, slot, tenant } = payload;
  if (typeof slot !== 'string' || Number.isNaN(Date.parse(slot)))
    throw refused('CALLBACK_TOKEN_INVALID', 'the callback token is not valid: its slot claim is not an ISO 8601 time');
  // The tenant goes into queries: a name API_TOKEN could not give (a NUL, capitals) is no tenant's.
  if (tenant !== undefined && (typeof tenant !== 'string' || !isTenantName(tenant)))
    throw refused('CALLBACK_TOKEN_INVALID', `the callback token is not valid: its tenant claim is not a tenant name (${TENANT_RULE})`);
  if ((exp as number) - (iat as number) > CALLBACK_TOKEN_MAX_LIFETIME_SECONDS) {
    throw refused('CALLBACK_TOKEN_INVALID', `the callback token is not valid: it lives longer than ${CALLBACK_TOKEN_MAX_LIFETIME_SECONDS} s (exp - iat)`);
  }
  if ((iat as number) > expected.now.getTime() / 1000 + CALLBACK_TOKEN_CLOCK_SKEW_SECONDS) {
    throw refused(
      'CALLBACK_TOKEN_INVALID',
      `the callback token is not valid: it was issued more than ${CALLBACK_TOKEN_CLOCK_SKEW_SECONDS} s ahead of this service's clock (iat); check the scheduler's clock`,
    );
  }
  if (sub !== expected.jobId)
    throw refused('CALLBACK_TOKEN_WRONG_JOB', `the callback token is for job ${String(sub)}, not ${expected.jobId}`, { tokenJobId: sub });
  if (expected.slot !== undefined && (typeof expected.slot !== 'string' || Date.parse(expected.slot) !== Date.parse(slot))) {
    throw refused('CALLBACK_TOKEN_WRONG_SLOT', `the callback token is for slot ${slot}, not ${String(expected.slot)}`, { tokenSlot: slot });
  }
  return { jobId: sub, slot, ...(tenant ? { tenant } : {}) };
}
