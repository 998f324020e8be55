// Routes whose keyed first attempts claim their Idempotency-Key with their first append (see IdempotencyStore.claimWithFirstAppend).
import { SetMetadata } from '@nestjs/common';

const CLAIM_WITH_FIRST_APPEND = 'session-ledger:claim-with-first-append';

/**
 * Marks a route whose handler writes nothing but events, all through StreamStateStore, before its first append: its
 * keyed first attempt claims the key in that append's statement instead of in a statement of its own before the
 * route runs (where the key table and the event log share a database). A route that writes anything else first (a
 * read-model row, a call out) must not carry it: a duplicate running beside it would write that twice.
 */
export const ClaimWithFirstAppend = (): MethodDecorator => SetMetadata(CLAIM_WITH_FIRST_APPEND, true);

export function claimsWithFirstAppend(handler: object): boolean {
  return Reflect.getMetadata(CLAIM_WITH_FIRST_APPEND, handler) === true;
}
