// The writes of a request sent with an Idempotency-Key: event ids derived from the key, so a retry finds what an earlier attempt wrote.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { AppendClaim } from './eventStore.js';

/**
 * One attempt at a keyed request. The n-th append a request makes to a stream gets ids derived from (the
 * claim's seed, the stream, n, the event's index): every attempt of the same request derives the same ids,
 * so the store's deduplication by event id keeps a second attempt from writing what the first one did, and
 * `findEvent` tells the second attempt what the first one wrote, across restarts and instances.
 */
export class IdempotentWrite {
  private readonly appendsByStream = new Map<string, number>();
  private readonly choicesByPurpose = new Map<string, number>();
  /** Whether an append of this attempt was found already written by an earlier one (and so not written again). */
  foundEarlierWrites = false;
  /**
   * The key's claim, while it is to be made with this request's first append (see IdempotencyStore.claimWithFirstAppend):
   * every append carries it until one has made it (the store clears it then), so a decision decided again after a
   * refused append claims with its own append, once.
   */
  pendingClaim?: AppendClaim;

  constructor(
    /** Unique per claim of a key (see IdempotencyStore): a key used again after its TTL derives new ids. */
    private readonly seed: string,
    /** Recorded in the metadata of every event the request writes: which keyed request wrote it. */
    readonly tag: string,
    /** An earlier attempt may have written before it died or failed: each append first looks for its own events. */
    readonly recovering: boolean,
    /** When the key was first claimed: names stamped with a time (session ids) come out the same on every attempt. */
    readonly firstClaimedAt: Date = new Date(),
  ) {}

  /**
   * Hex digits standing in for a random choice (a new session's, job's or runtime session's id): the n-th choice
   * for `purpose` is the same on every attempt, so a retry names what the earlier attempt created and finds it,
   * instead of creating a second one beside it.
   */
  chosenHex(purpose: string, digits: number): string {
    const index = this.choicesByPurpose.get(purpose) ?? 0;
    this.choicesByPurpose.set(purpose, index + 1);
    return createHash('sha256').update(`${this.seed}\u0000choice\u0000${purpose}\u0000${index}`).digest('hex').slice(0, digits);
  }

  /** Counts the request's appends to `streamName`: the number of the one about to be decided. */
  nextAppend(streamName: string): number {
    const next = this.appendsByStream.get(streamName) ?? 0;
    this.appendsByStream.set(streamName, next + 1);
    return next;
  }

  eventId(streamName: string, append: number, index: number): string {
    const hex = createHash('sha256').update(`${this.seed}\u0000${streamName}\u0000${append}\u0000${index}`).digest('hex');
    // Shaped as an RFC 9562 version-8 (custom) UUID, the only form the stores accept as an event id.
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}

/**
 * Where a request's IdempotentWrite lives while it runs. A slot is opened around each request before Nest routes
 * it (Nest runs the handler in the async context the request arrived in, so a context opened later, inside an
 * interceptor, would not reach it); the interceptor that claims the key fills the slot.
 */
interface Slot {
  write?: IdempotentWrite;
}

const slots = new AsyncLocalStorage<Slot>();

export function withIdempotentWriteSlot<T>(work: () => T): T {
  return slots.run({}, work);
}

/** Makes `write` the current request's; false when no slot is open (the work does not run for a request). */
export function enterIdempotentWrite(write: IdempotentWrite | undefined): boolean {
  const slot = slots.getStore();
  if (!slot) return false;
  slot.write = write;
  return true;
}

export function currentIdempotentWrite(): IdempotentWrite | undefined {
  return slots.getStore()?.write;
}
