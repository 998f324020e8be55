// Our own deadline around a client call: the client runs reads, subscriptions and batched appends with no gRPC deadline.
import { EventStoreUnavailableError } from '../eventStoreErrors.js';

/**
 * Settles like `work`, or rejects with EventStoreUnavailableError once `deadlineMs` has passed.
 * `onExpired` may cancel the abandoned work; the timer is cleared either way so nothing outlives the call.
 */
export async function withDeadline<T>(work: Promise<T>, deadlineMs: number, operation: string, onExpired?: () => unknown): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new EventStoreUnavailableError(`EventStoreDB did not answer ${operation} within ${deadlineMs} ms`));
      // Cleanup of abandoned work is best effort: the caller already has its error.
      Promise.resolve()
        .then(onExpired)
        .catch(() => undefined);
    }, deadlineMs);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
