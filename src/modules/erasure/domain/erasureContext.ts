// What one erasure puts in place of a person's data: a pseudonymous session key, keyed pseudonyms for their ids, a placeholder for text.
import { createHmac, randomBytes } from 'node:crypto';

/** Stands in for every message, prompt, answer and label an erasure removes. */
export const ERASED_TEXT = '[erased]';

const PSEUDONYM = /^erased-[0-9a-f]{16}$/;

export interface ErasureContext {
  erasureId: string;
  /** The session key being erased. */
  sessionKey: string;
  /** The random key its conversation and runtime binding live on afterwards (random, not derived from the old key). */
  pseudonymousKey: string;
  /** The tenant whose streams are erased; undefined for the default tenant. */
  tenant: string | undefined;
  /**
   * A stand-in for an id or name the person's side chose (queue message ids, memory entry names): within one
   * erasure the same value always gets the same pseudonym, so references between events still match, and a
   * pseudonym is left as it is, so redacting an event twice changes nothing the second time.
   */
  pseudonym(value: string): string;
  /**
   * The person's own chat ids by platform, as the erasure found them in their sources (see `personalChatIds`): a
   * gateway's home channel on that platform naming one is their chat. Empty once the sources are erased (a resumed
   * erasure): the pseudonyms an earlier pass wrote stay as they are.
   */
  personalChatIds?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** `random` is injectable so tests can fix the ids; the HMAC key is never stored, so pseudonyms cannot be reversed. */
export function newErasureContext(sessionKey: string, tenant: string | undefined, random: (bytes: number) => Buffer = randomBytes): ErasureContext {
  const secret = random(32);
  return {
    erasureId: `erasure_${random(8).toString('hex')}`,
    sessionKey,
    pseudonymousKey: `erased:${random(12).toString('hex')}`,
    tenant,
    pseudonym: (value) => (PSEUDONYM.test(value) ? value : `erased-${createHmac('sha256', secret).update(value).digest('hex').slice(0, 16)}`),
  };
}

/** The key as an erasure leaves it: the erased key becomes the pseudonymous one, every other value stays. */
export function keyAfterErasure(key: string, context: ErasureContext): string {
  return key === context.sessionKey ? context.pseudonymousKey : key;
}

/** Whether a key names the person being erased, before or after this erasure's rewrite. */
export function isErasedKey(key: unknown, context: ErasureContext): boolean {
  return key === context.sessionKey || key === context.pseudonymousKey;
}

/**
 * The context of an erasure a crash cut short, rebuilt from its record: the old key is gone from the log and was
 * never recorded, so the key the passes look for is the pseudonymous one the streams carry now. Pseudonyms already
 * written are kept as they are; a value first met now gets one under a fresh secret.
 */
export function resumedErasureContext(
  record: { erasureId: string; tenant: string | null; streams: readonly string[]; pseudonymousKey?: string },
  random: (bytes: number) => Buffer = randomBytes,
): ErasureContext {
  const fresh = newErasureContext('', record.tenant ?? undefined, random);
  const pseudonymousKey = record.pseudonymousKey ?? fresh.pseudonymousKey;
  return { ...fresh, erasureId: record.erasureId, sessionKey: pseudonymousKey, pseudonymousKey };
}
