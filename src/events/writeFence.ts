// A request's precondition on the stream it writes (HTTP If-Match): the write goes ahead only while the stream stands
// at a revision the client named, checked on the state the decision is made on, so the append's expected revision
// proves it. A fence holds for the request's first append to its stream; what the request appends after it (a
// decision made again on the state that append left) is the request's own doing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { LedgerError } from '../errors/ledgerError.js';

/** The revisions an If-Match admits: `any` (`*`) is any existing stream. */
export type FenceRevisions = number[] | 'any';

export class WriteFence {
  private settled = false;

  constructor(
    readonly streamName: string,
    readonly revisions: FenceRevisions,
    /** How the resource is named to the client, for the error's message ("session s-1"). */
    readonly resource: string,
  ) {}

  /**
   * Whether a decision on `streamName` at `revision` must be refused; false once the request has appended to it, and
   * for a stream that does not exist: the write then answers as it would without a precondition (404), as RFC 9110
   * § 13.2.1 has a server ignore preconditions where the answer without them would be neither 2xx nor 412.
   */
  refuses(streamName: string, revision: number): boolean {
    if (this.settled || streamName !== this.streamName || revision < 0) return false;
    return this.revisions !== 'any' && !this.revisions.includes(revision);
  }

  /** The request appended to the fenced stream: the precondition has done its work. */
  settle(streamName: string): void {
    if (streamName === this.streamName) this.settled = true;
  }

  failure(revision: number): LedgerError {
    const expected = this.revisions === 'any' ? 'any revision' : `revision ${this.revisions.join(' or ')}`;
    return new LedgerError('PRECONDITION_FAILED', `If-Match asked for ${expected}; ${this.resource} is at revision ${revision}: nothing was written`, 412, {
      currentRevision: revision,
      ifMatch: this.revisions === 'any' ? '*' : this.revisions,
    });
  }
}

interface Slot {
  fence?: WriteFence;
}

const slots = new AsyncLocalStorage<Slot>();

/** Opened around each request before Nest routes it (as withIdempotentWriteSlot); the If-Match interceptor fills it. */
export function withWriteFenceSlot<T>(work: () => T): T {
  return slots.run({}, work);
}

/** Makes `fence` the current request's; false when no slot is open. */
export function enterWriteFence(fence: WriteFence): boolean {
  const slot = slots.getStore();
  if (!slot) return false;
  slot.fence = fence;
  return true;
}

export function currentWriteFence(): WriteFence | undefined {
  return slots.getStore()?.fence;
}
